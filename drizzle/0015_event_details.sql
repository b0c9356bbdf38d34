-- Events about the order itself (refused, cancelled, its in-hand date moved) and events that carry
-- more than a transition (the files uploaded, a deadline's reason) share the order's history:
-- `details` holds what an event says beyond its transition, and an order with no shipment (a
-- refused one) leaves no shipment state.
ALTER TABLE "shipment_events" ADD COLUMN "details" jsonb;--> statement-breakpoint
ALTER TABLE "shipment_events" ALTER COLUMN "to_state" DROP NOT NULL;
