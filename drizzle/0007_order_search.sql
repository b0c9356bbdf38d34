ALTER TABLE "orders" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
UPDATE "orders" o SET "updated_at" = greatest(o."created_at", o."accepted_at", o."completed_at", (SELECT max(e."at") FROM "shipment_events" e WHERE e."order_id" = o."id"));--> statement-breakpoint
DROP INDEX "orders_seller_office_idx";--> statement-breakpoint
DROP INDEX "orders_buyer_brokerage_idx";--> statement-breakpoint
CREATE INDEX "orders_created_idx" ON "orders" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "orders_updated_idx" ON "orders" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "orders_state_created_idx" ON "orders" USING btree ("state","created_at","id");--> statement-breakpoint
CREATE INDEX "orders_seller_office_created_idx" ON "orders" USING btree ("seller_office_id","created_at","id");--> statement-breakpoint
CREATE INDEX "orders_buyer_brokerage_created_idx" ON "orders" USING btree ("buyer_brokerage_id","created_at","id");--> statement-breakpoint
CREATE INDEX "commands_open_idx" ON "commands" USING btree ("status") WHERE status <> 'succeeded';--> statement-breakpoint
CREATE OR REPLACE FUNCTION "fulfil_orders_touch"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- a statement that sets updated_at itself (a backfill, an import) keeps its value
  IF NEW.updated_at IS NOT DISTINCT FROM OLD.updated_at THEN
    NEW.updated_at := now();
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "orders_touch" BEFORE UPDATE ON "orders" FOR EACH ROW EXECUTE FUNCTION "fulfil_orders_touch"();
