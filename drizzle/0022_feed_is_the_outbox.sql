-- The feed row is the outbox entry (docs/DECISIONS.md D-143; docs/BENCHMARKS.md, "The feed row
-- is the outbox").
--
-- A command's statement writes one event_feed row per event, naming both parties (the seller's
-- brokerage and the buyer's), with no position yet: that row is what the relay waits for. The
-- relay gives it its position in place (an update of a row of four numbers). It used to be three
-- row writes more per event: an outbox row inserted and deleted, and two feed rows, one per party.
-- Relayed events keep their positions; events still waiting keep their place, in their order.
-- Stop the service before migrating: a relay of the version before writes tables that are gone.
CREATE TABLE "event_feed_next" (
	"event_row_id" bigint NOT NULL,
	"seller_brokerage_id" bigint NOT NULL,
	"buyer_brokerage_id" bigint NOT NULL,
	"position" bigint
);
--> statement-breakpoint
INSERT INTO "event_feed_next" ("event_row_id", "seller_brokerage_id", "buyer_brokerage_id", "position")
  SELECT f.event_row_id, fo.brokerage_id, o.buyer_brokerage_id, min(f.position)
  FROM "event_feed" f
  JOIN "shipment_events" e ON e.id = f.event_row_id
  JOIN "orders" o ON o.id = e.order_id
  JOIN "offices" fo ON fo.id = o.seller_office_id
  GROUP BY f.event_row_id, fo.brokerage_id, o.buyer_brokerage_id
  ORDER BY min(f.position);
--> statement-breakpoint
INSERT INTO "event_feed_next" ("event_row_id", "seller_brokerage_id", "buyer_brokerage_id")
  SELECT x.event_row_id, fo.brokerage_id, o.buyer_brokerage_id
  FROM "outbox" x
  JOIN "shipment_events" e ON e.id = x.event_row_id
  JOIN "orders" o ON o.id = e.order_id
  JOIN "offices" fo ON fo.id = o.seller_office_id
  WHERE NOT EXISTS (SELECT 1 FROM "event_feed" f WHERE f.event_row_id = x.event_row_id)
  ORDER BY x.id;
--> statement-breakpoint
DROP TABLE "outbox";
--> statement-breakpoint
DROP TABLE "event_feed";
--> statement-breakpoint
ALTER TABLE "event_feed_next" RENAME TO "event_feed";
--> statement-breakpoint
CREATE UNIQUE INDEX "event_feed_waiting" ON "event_feed" USING btree ("event_row_id") WHERE "position" IS NULL;
--> statement-breakpoint
CREATE INDEX "event_feed_seller" ON "event_feed" USING btree ("seller_brokerage_id", "position") WHERE "position" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "event_feed_buyer" ON "event_feed" USING btree ("buyer_brokerage_id", "position") WHERE "position" IS NOT NULL;
