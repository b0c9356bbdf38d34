ALTER TABLE "event_feed" DROP CONSTRAINT "event_feed_brokerage_id_brokerages_id_fk";
--> statement-breakpoint
ALTER TABLE "event_feed" DROP CONSTRAINT "event_feed_event_row_id_shipment_events_id_fk";
