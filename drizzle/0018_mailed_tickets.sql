-- Mailed tickets (issue 44): the address a mailed shipment goes to, its service, tracking number,
-- the carrier account's tracker and label; every tracking event once; carrier webhooks taken once.
ALTER TABLE "shipments" ADD COLUMN "ship_to_address_id" bigint;--> statement-breakpoint
ALTER TABLE "shipments" ADD COLUMN "service_type" text;--> statement-breakpoint
ALTER TABLE "shipments" ADD COLUMN "tracking_number" text;--> statement-breakpoint
ALTER TABLE "shipments" ADD COLUMN "carrier_tracker_id" text;--> statement-breakpoint
ALTER TABLE "shipments" ADD COLUMN "carrier_label_id" text;--> statement-breakpoint
ALTER TABLE "shipments" ADD COLUMN "estimated_delivery_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "shipments" ADD CONSTRAINT "shipments_ship_to_address_id_addresses_id_fk" FOREIGN KEY ("ship_to_address_id") REFERENCES "public"."addresses"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "shipments_tracking_number_idx" ON "shipments" USING btree ("tracking_number") WHERE "shipments"."tracking_number" is not null and "shipments"."replaced_by" is null;--> statement-breakpoint
CREATE TABLE "tracking_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"order_id" bigint NOT NULL,
	"shipment_id" bigint NOT NULL,
	"source" text NOT NULL,
	"status" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"location" text,
	"description" text,
	"seller_claim" boolean DEFAULT false NOT NULL,
	"carrier_event_id" text,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "tracking_events_once" ON "tracking_events" USING btree ("shipment_id","source","status","occurred_at");--> statement-breakpoint
CREATE INDEX "tracking_events_order_idx" ON "tracking_events" USING btree ("order_id","occurred_at");--> statement-breakpoint
CREATE TABLE "carrier_events" (
	"provider" text NOT NULL,
	"event_id" text NOT NULL,
	"tracking_code" text,
	"outcome" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "carrier_events_once" ON "carrier_events" USING btree ("provider","event_id");--> statement-breakpoint
CREATE INDEX "carrier_events_received_idx" ON "carrier_events" USING btree ("received_at");
