ALTER TABLE "orders" ADD COLUMN "event_seq" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "orders" o SET "event_seq" = e.max_seq FROM (SELECT "order_id", max("seq") AS max_seq FROM "shipment_events" GROUP BY "order_id") e WHERE e."order_id" = o."id";
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "fulfil_outbox_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('fulfil_outbox', '');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "outbox_notify" AFTER INSERT ON "outbox" FOR EACH STATEMENT EXECUTE FUNCTION "fulfil_outbox_notify"();
