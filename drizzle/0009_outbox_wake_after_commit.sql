-- Workers wake the outbox relay after their commit (src/events/relay-wake.ts). A NOTIFY inside
-- every command's transaction made Postgres serialise those commits (one database-wide lock held
-- through each commit's WAL flush), which capped the command path.
DROP TRIGGER IF EXISTS "outbox_notify" ON "outbox";
--> statement-breakpoint
DROP FUNCTION IF EXISTS "fulfil_outbox_notify"();
