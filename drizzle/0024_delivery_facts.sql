-- Delivery facts a marketplace can pay on (docs/DECISIONS.md D-150 to D-154). New tables and
-- nullable or defaulted columns only: no row is rewritten, each statement holds its table's lock
-- for a moment (docs/OPERATIONS.md, Upgrading).
--
-- tracking_claims: one row per envelope (carrier, normalised number). Its key is the guarantee
-- that a number belongs to one order's shipment across all brokerages: two commands claiming it
-- at once meet on the key, the second waits for the first to commit and is refused (D-150). A
-- claim is released only while its shipment is still pending (the number changed before shipping);
-- once shipped or delivered it stays the holder's for good.
CREATE TABLE "tracking_claims" (
	"carrier" text NOT NULL,
	"number_key" text NOT NULL,
	"tracking_number" text NOT NULL,
	"order_id" bigint NOT NULL,
	"shipment_id" bigint NOT NULL,
	"tracker_id" text,
	"state" text DEFAULT 'live' NOT NULL,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tracking_claims_pkey" PRIMARY KEY ("carrier", "number_key")
);
--> statement-breakpoint
CREATE INDEX "tracking_claims_tracker_idx" ON "tracking_claims" USING btree ("tracker_id") WHERE "tracker_id" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "tracking_claims_order_idx" ON "tracking_claims" USING btree ("order_id");
--> statement-breakpoint
-- A scan kept while its effect waits (a cancellation proposed); a carrier's time it could not use
-- (out of range, in the future, before the shipment existed), replaced by the time it came.
ALTER TABLE "tracking_events" ADD COLUMN "held" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE "tracking_events" ADD COLUMN "time_flag" text;
--> statement-breakpoint
ALTER TABLE "tracking_events" ADD COLUMN "reported_time" text;
--> statement-breakpoint
-- A carrier event that matched no live shipment keeps its scans, for the operators (D-151).
ALTER TABLE "carrier_events" ADD COLUMN "scans" jsonb;
--> statement-breakpoint
-- label_purchases: one row per shipment whose label is bought through the carrier account, taken
-- before the carrier is called (D-153): whoever inserts it buys; the others wait for its label.
CREATE TABLE "label_purchases" (
	"shipment_id" bigint PRIMARY KEY NOT NULL,
	"state" text DEFAULT 'buying' NOT NULL,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"provider" text,
	"label_id" text,
	"tracking_code" text,
	"tracker_id" text,
	"service" text,
	"reason" text,
	"rate" text,
	"estimated_delivery_at" timestamp with time zone,
	"sha256" text,
	"note" text
);
