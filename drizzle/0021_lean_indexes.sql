-- Fewer index entries per command (docs/DECISIONS.md D-140, D-141; WAL measured with
-- pg_walinspect on the scale bench). Index builds only: each locks its table while it builds
-- (docs/OPERATIONS.md, Upgrading).
--
-- shipments: one unique key (order_id, replaced_by) with NULLS NOT DISTINCT instead of the index
-- on order_id and the unique partial index of the live shipments. It is both: a lookup by order
-- (every version of it) and by order and `replaced_by is null` (the live one) takes its leading
-- column or both, and two rows of one order with a null replaced_by are two equal keys, so an
-- order still has at most one live shipment. A tombstone's replaced_by is the id of the version
-- that replaced it, the primary key of a row inserted by the same statement, so no two rows share
-- one. Each shipment row had an entry in both indexes (79 + 54 bytes of WAL per command); it has
-- one now, and a tombstone writes a new entry where it wrote one before.
ALTER TABLE "shipments" ADD CONSTRAINT "shipments_order_replaced_by_key" UNIQUE NULLS NOT DISTINCT ("order_id", "replaced_by");
--> statement-breakpoint
DROP INDEX "shipments_one_live_per_order";
--> statement-breakpoint
DROP INDEX "shipments_order_idx";
--> statement-breakpoint
-- commands: a BRIN index on created_at instead of a btree. Its reader is the retention's search
-- for old finished commands (workers/command-retention.ts), a range of old rows, which a BRIN
-- index serves; no query pages through commands by created_at through this index (lost-command
-- recovery and the metrics read the open commands through commands_open_idx). The btree took an
-- entry per command, about 135 bytes of WAL; a BRIN index writes only when a summarized range
-- widens, which once retention frees pages is about every insert there (72 bytes; D-141). Its
-- cost: it cannot give rows in created_at order (the operators' page of one order's commands,
-- which sorts the few rows it finds by their payload, scanned the table either way).
DROP INDEX "commands_created_idx";
--> statement-breakpoint
CREATE INDEX "commands_created_brin" ON "commands" USING brin ("created_at");
