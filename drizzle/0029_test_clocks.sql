-- Test clocks (docs/TESTING-YOUR-INTEGRATION.md; docs/DECISIONS.md D-180). A test clock is a time a
-- sandbox brokerage owns and moves forward; an order made on it lives at that time. Postgres keeps
-- the clock's time and whether it is advancing, and the target of the advance, so an advance cut
-- short by a crash or a lost Redis goes on from Postgres. The transaction's clock is one setting,
-- `fulfil.clock`, read by fulfil_clock() and fulfil_now(): the statements that stamp an order's
-- objects read fulfil_now(), which is the wall clock unless the transaction set an order's clock.
-- Every statement adds a table, a function, an empty index or a column with a constant default:
-- no table is rewritten, each lock is held for a moment (docs/OPERATIONS.md, Upgrading).
CREATE TABLE "test_clocks" (
	"id" bigint PRIMARY KEY DEFAULT nextval('sandbox_ids') NOT NULL,
	"brokerage_id" bigint NOT NULL,
	"name" text,
	"frozen_time" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'ready' NOT NULL,
	"advance_to" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "test_clocks_status" CHECK ("test_clocks"."status" in ('ready', 'advancing')),
	CONSTRAINT "test_clocks_advance_to" CHECK (("test_clocks"."status" = 'advancing') = ("test_clocks"."advance_to" is not null))
);
--> statement-breakpoint
ALTER TABLE "test_clocks" ADD CONSTRAINT "test_clocks_brokerage_id_brokerages_id_fk" FOREIGN KEY ("brokerage_id") REFERENCES "public"."brokerages"("id");
--> statement-breakpoint
CREATE INDEX "test_clocks_brokerage_idx" ON "test_clocks" USING btree ("brokerage_id","id");
--> statement-breakpoint
CREATE INDEX "test_clocks_advancing_idx" ON "test_clocks" USING btree ("id") WHERE "test_clocks"."status" = 'advancing';
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "test_clock_id" bigint;
--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_test_clock_id_test_clocks_id_fk" FOREIGN KEY ("test_clock_id") REFERENCES "public"."test_clocks"("id");
--> statement-breakpoint
CREATE INDEX "orders_test_clock_idx" ON "orders" USING btree ("test_clock_id","id") WHERE "orders"."test_clock_id" is not null;
--> statement-breakpoint
ALTER TABLE "shipment_events" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;
--> statement-breakpoint
ALTER TABLE "shipment_events" ADD COLUMN "test_clock_id" bigint;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "fulfil_clock"() RETURNS timestamp with time zone LANGUAGE sql STABLE AS $$
  select nullif(current_setting('fulfil.clock', true), '')::timestamptz
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "fulfil_now"() RETURNS timestamp with time zone LANGUAGE sql STABLE AS $$
  select coalesce(fulfil_clock(), now())
$$;
--> statement-breakpoint
ALTER TABLE "shipments" ALTER COLUMN "created_at" SET DEFAULT fulfil_now();
--> statement-breakpoint
ALTER TABLE "shipment_file_sets" ALTER COLUMN "created_at" SET DEFAULT fulfil_now();
--> statement-breakpoint
ALTER TABLE "tracking_events" ALTER COLUMN "recorded_at" SET DEFAULT fulfil_now();
--> statement-breakpoint
CREATE TABLE "test_clock_events" (
	"event_id" text PRIMARY KEY NOT NULL,
	"clock_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"body" jsonb NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "test_clock_events" ADD CONSTRAINT "test_clock_events_clock_id_test_clocks_id_fk" FOREIGN KEY ("clock_id") REFERENCES "public"."test_clocks"("id") ON DELETE cascade;
