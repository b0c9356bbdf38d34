ALTER TABLE "outbox" DROP CONSTRAINT "outbox_event_id_unique";--> statement-breakpoint
ALTER TABLE "shipments" DROP CONSTRAINT "shipments_order_id_orders_id_fk";
--> statement-breakpoint
ALTER TABLE "commands" DROP CONSTRAINT "commands_brokerage_id_brokerages_id_fk";
--> statement-breakpoint
ALTER TABLE "shipment_events" DROP CONSTRAINT "shipment_events_order_id_orders_id_fk";
