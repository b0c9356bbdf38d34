-- Test mode (docs/API.md §Test mode; docs/DECISIONS.md D-148). A test credential acts for its
-- brokerage's sandbox twin: a brokerage row of its own (livemode false, sandbox_of the live one)
-- with offices mirrored from the live ones, so that every tenancy check that keeps one brokerage
-- from another's orders keeps test from live data too. Sandbox rows take their ids from a sequence
-- far above any marketplace id (7·10^15, still exact in a JSON number). The simulated
-- counterparty, the other party of every test order, is one brokerage with one office.
-- Every statement adds a column with a constant default, an empty index or a row: no table is
-- rewritten, each lock is held for a moment (docs/OPERATIONS.md, Upgrading).
CREATE SEQUENCE "sandbox_ids" START WITH 7000000000000001;
--> statement-breakpoint
ALTER TABLE "brokerages" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;
--> statement-breakpoint
ALTER TABLE "brokerages" ADD COLUMN "sandbox_of" bigint;
--> statement-breakpoint
ALTER TABLE "brokerages" ADD CONSTRAINT "brokerages_sandbox_of_brokerages_id_fk" FOREIGN KEY ("sandbox_of") REFERENCES "public"."brokerages"("id");
--> statement-breakpoint
CREATE UNIQUE INDEX "brokerages_sandbox_of_key" ON "brokerages" USING btree ("sandbox_of");
--> statement-breakpoint
ALTER TABLE "offices" ADD COLUMN "sandbox_of" bigint;
--> statement-breakpoint
ALTER TABLE "offices" ADD CONSTRAINT "offices_sandbox_of_offices_id_fk" FOREIGN KEY ("sandbox_of") REFERENCES "public"."offices"("id");
--> statement-breakpoint
CREATE UNIQUE INDEX "offices_sandbox_of_key" ON "offices" USING btree ("sandbox_of");
--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "mode" text DEFAULT 'live' NOT NULL;
--> statement-breakpoint
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_mode" CHECK ("credentials"."mode" in ('live', 'test'));
--> statement-breakpoint
INSERT INTO "brokerages" ("id", "name", "livemode") VALUES (7000000000000000, 'Simulated counterparty', false) ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO "offices" ("id", "brokerage_id", "name") VALUES (7000000000000000, 7000000000000000, 'Simulated counterparty') ON CONFLICT DO NOTHING;
