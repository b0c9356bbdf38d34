-- Less Postgres work per command (docs/DECISIONS.md D-135 to D-139; docs/BENCHMARKS.md, "Half the
-- WAL a command").
--
-- The outbox becomes a queue of event row ids: the relay builds each message from its event row
-- and deletes the outbox row in the batch that hands it on (it used to keep a copy of the message
-- and mark it relayed: an insert, an update to a new row version and two index entries more per
-- event). Events not relayed yet keep their place, in their order; relayed rows are history the
-- event rows already hold. Stop the service before migrating: a relay of the version before
-- reads columns that are gone.
CREATE TABLE "outbox_next" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"event_row_id" bigint NOT NULL
);
--> statement-breakpoint
INSERT INTO "outbox_next" ("event_row_id")
  SELECT e.id FROM "outbox" o JOIN "shipment_events" e ON e.event_id = o.event_id
  WHERE o.relayed_at IS NULL ORDER BY o.id;
--> statement-breakpoint
DROP TABLE "outbox";
--> statement-breakpoint
ALTER TABLE "outbox_next" RENAME TO "outbox";
--> statement-breakpoint
ALTER TABLE "outbox" RENAME CONSTRAINT "outbox_next_pkey" TO "outbox_pkey";
--> statement-breakpoint
ALTER SEQUENCE "outbox_next_id_seq" RENAME TO "outbox_id_seq";
--> statement-breakpoint
-- An event that changes its shipment in place (a completion, a cancellation, a carrier's scan)
-- names what it changed, the columns' former values (shipment_before); the events before it are
-- shown from that (src/db/sql/shipment-version.ts). They used to be written again instead: each
-- got a copy of the whole version it left (shipment_as_left), a new row version of the event with
-- its index entries, per completion. The copies already written become the changes that made
-- them: an in-place event's change is the difference between the version the event before it
-- left (its copy) and the version it left itself (its own copy, or the shipment row as it is).
ALTER TABLE "shipment_events" ADD COLUMN "shipment_before" jsonb;
--> statement-breakpoint
UPDATE "shipment_events" l SET "shipment_before" = c.before
FROM (
  SELECT l2.id, (
    SELECT jsonb_object_agg(b.key, b.value) FROM jsonb_each(p.shipment_as_left -> 'shipment') b
    WHERE b.value IS DISTINCT FROM coalesce(
      l2.shipment_as_left -> 'shipment',
      (SELECT jsonb_build_object('id', s.id, 'orderId', s.order_id, 'type', s.type, 'state', s.state, 'snapshot', s.snapshot, 'replacedBy', s.replaced_by, 'replacedAt', s.replaced_at, 'shipToName', s.ship_to_name, 'emailAddressId', s.email_address_id, 'xMobileLink', s.x_mobile_link, 'transferSource', s.transfer_source, 'shipFromName', s.ship_from_name, 'shipFromAddressId', s.ship_from_address_id, 'shipFromPhoneNumberId', s.ship_from_phone_number_id, 'phoneNumberId', s.phone_number_id, 'pickupTimeRange', s.pickup_time_range, 'pickupInstructions', s.pickup_instructions, 'notes', s.notes, 'shipToAddressId', s.ship_to_address_id, 'serviceType', s.service_type, 'trackingNumber', s.tracking_number, 'carrierTrackerId', s.carrier_tracker_id, 'carrierLabelId', s.carrier_label_id, 'estimatedDeliveryAt', s.estimated_delivery_at, 'createdAt', s.created_at, 'deliveredAt', s.delivered_at) FROM shipments s WHERE s.id = l2.shipment_id)
    ) -> b.key) AS before
  FROM shipment_events l2
  CROSS JOIN LATERAL (
    SELECT p.shipment_as_left FROM shipment_events p
    WHERE p.order_id = l2.order_id AND p.seq < l2.seq AND p.new_shipment_id = l2.shipment_id
    ORDER BY p.seq DESC LIMIT 1
  ) p
  WHERE l2.shipment_id = l2.new_shipment_id AND p.shipment_as_left IS NOT NULL
) c
WHERE l.id = c.id AND c.before IS NOT NULL;
--> statement-breakpoint
ALTER TABLE "shipment_events" DROP COLUMN "shipment_as_left";
--> statement-breakpoint
-- Every event bumps its order's counter (and the touch trigger its updated_at). With updated_at
-- indexed, no such update could be HOT: each wrote an entry in all seven of the order's indexes.
-- Without it, an event that leaves the order's state alone updates the row in place on its page,
-- with room kept there for it (fillfactor 85; pages written before fill up as they did until
-- pruning frees room on them). The operators' filter on the update time walks the creation index
-- instead (docs/DECISIONS.md D-139 says what that costs it).
DROP INDEX "orders_updated_idx";
--> statement-breakpoint
ALTER TABLE "orders" SET (fillfactor = 85);
--> statement-breakpoint
ALTER TABLE "shipments" SET (fillfactor = 85);
--> statement-breakpoint
-- A command's row is written twice: by the producer, and with the answer by the worker. That
-- second version cannot be HOT (status is indexed for the open commands), but when it lands on
-- the row's own page Postgres logs only what changed, not the payload and actor again before it.
-- Half of each page is left for it.
ALTER TABLE "commands" SET (fillfactor = 50);
