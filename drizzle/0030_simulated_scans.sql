-- The carrier simulator (docs/API.md, Test mode; D-195): one row per scan it has planned for a
-- test shipment carrying one of EasyPost's test tracking codes. Postgres holds when each scan is
-- due (on the order's test clock, or on the wall clock) and whether it came (fired_at); Redis holds
-- at most one delayed job per order, for its next unfired scan. A new table and its indexes only.
CREATE TABLE "simulated_scans" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"order_id" bigint NOT NULL,
	"shipment_id" bigint NOT NULL,
	"seq" integer NOT NULL,
	"tracking_code" text NOT NULL,
	"status" text NOT NULL,
	"description" text,
	"location" text,
	"estimated_delivery_at" timestamp with time zone,
	"due_at" timestamp with time zone NOT NULL,
	"fired_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "simulated_scans" ADD CONSTRAINT "simulated_scans_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade;
--> statement-breakpoint
ALTER TABLE "simulated_scans" ADD CONSTRAINT "simulated_scans_shipment_id_shipments_id_fk" FOREIGN KEY ("shipment_id") REFERENCES "public"."shipments"("id") ON DELETE cascade;
--> statement-breakpoint
CREATE UNIQUE INDEX "simulated_scans_once" ON "simulated_scans" USING btree ("shipment_id","seq");
--> statement-breakpoint
CREATE INDEX "simulated_scans_unfired_idx" ON "simulated_scans" USING btree ("order_id","due_at","seq") WHERE "simulated_scans"."fired_at" is null;
--> statement-breakpoint
CREATE INDEX "simulated_scans_due_idx" ON "simulated_scans" USING btree ("due_at","order_id") WHERE "simulated_scans"."fired_at" is null;
