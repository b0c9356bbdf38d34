CREATE TABLE "event_feed" (
	"brokerage_id" bigint NOT NULL,
	"position" bigint NOT NULL,
	"event_row_id" bigint NOT NULL,
	CONSTRAINT "event_feed_brokerage_id_position_pk" PRIMARY KEY("brokerage_id","position")
);
--> statement-breakpoint
CREATE TABLE "event_feed_head" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"position" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "event_feed" ADD CONSTRAINT "event_feed_brokerage_id_brokerages_id_fk" FOREIGN KEY ("brokerage_id") REFERENCES "public"."brokerages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_feed" ADD CONSTRAINT "event_feed_event_row_id_shipment_events_id_fk" FOREIGN KEY ("event_row_id") REFERENCES "public"."shipment_events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
INSERT INTO "event_feed_head" ("id", "position") VALUES (1, 0);
--> statement-breakpoint
-- The history so far, in id order: every event the relay already handed on (its outbox row relayed
-- or pruned). Events still waiting in the outbox get their positions when the relay takes them.
WITH "e" AS (
  SELECT se."id", se."order_id", row_number() OVER (ORDER BY se."id") AS "position"
  FROM "shipment_events" se
  WHERE NOT EXISTS (SELECT 1 FROM "outbox" ob WHERE ob."event_id" = se."event_id" AND ob."relayed_at" IS NULL)
)
INSERT INTO "event_feed" ("brokerage_id", "position", "event_row_id")
SELECT DISTINCT p."brokerage_id", e."position", e."id"
FROM "e" JOIN "orders" o ON o."id" = e."order_id" JOIN "offices" f ON f."id" = o."seller_office_id"
CROSS JOIN LATERAL (VALUES (f."brokerage_id"), (o."buyer_brokerage_id")) AS p("brokerage_id");
--> statement-breakpoint
UPDATE "event_feed_head" SET "position" = (SELECT coalesce(max("position"), 0) FROM "event_feed");
