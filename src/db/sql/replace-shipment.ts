import type { SqlRunner } from '../client.ts';
import type { NewShipment, ShipmentRow } from '../ops/shipment-rows.ts';
import { appendEventCtes, eventMessage, type EventFacts } from './append-event.ts';
import { shipmentColumns, toShipmentRow } from './shipment-columns.ts';

/**
 * Rule U1 in one statement: the old row becomes a tombstone naming its replacement, the
 * replacement is inserted with the id the tombstone names, the order's event counter moves (and,
 * when the replacement is delivered, the order completes), and the event is appended. The insert
 * reads from the tombstone's RETURNING, so the tombstone is written first and the
 * one-live-shipment-per-order index never sees two live rows.
 */
const REPLACE = `
with t as (
  update shipments set replaced_by = nextval('shipments_id_seq'), replaced_at = now()
  where id = $1::bigint and replaced_by is null returning replaced_by as id
),
n as (
  insert into shipments (id, order_id, type, state, snapshot, ship_to_name, email_address_id, x_mobile_link, transfer_source,
    ship_from_name, ship_from_address_id, ship_from_phone_number_id, phone_number_id, pickup_time_range, pickup_instructions,
    notes, delivered_at)
  select t.id, $2::bigint, $3, $4, $5::text::jsonb, $6, $7::bigint, $8, $9, $10, $11::bigint, $12::bigint, $13::bigint, $14, $15,
    $16, case when $17::boolean then now() end
  from t
  returning ${shipmentColumns('')}
),
o as (
  update orders set event_seq = event_seq + 1, state = coalesce($18::text, state),
    snapshot = coalesce($19::text::jsonb, snapshot), completed_at = case when $18::text is null then completed_at else now() end
  where id = $2::bigint returning id, event_seq
),
${appendEventCtes('$20')}
select * from n`;

export interface ReplaceWrite {
  old: ShipmentRow;
  next: NewShipment & { delivered: boolean };
  /** The order's new state and snapshot when the replacement completes it. */
  orderCompletion: { state: string; snapshot: unknown } | null;
  event: Omit<EventFacts, 'orderId' | 'shipmentId' | 'from' | 'to'>;
}

export async function replaceShipment(tx: SqlRunner, w: ReplaceWrite): Promise<ShipmentRow> {
  const n = w.next;
  const [row] = await tx.rows<Record<string, unknown>>(REPLACE, [
    w.old.id, n.orderId, n.type, n.state, JSON.stringify(n.snapshot), n.shipToName ?? null, n.emailAddressId ?? null,
    n.xMobileLink ?? null, n.transferSource ?? null, n.shipFromName ?? null, n.shipFromAddressId ?? null,
    n.shipFromPhoneNumberId ?? null, n.phoneNumberId ?? null, n.pickupTimeRange ?? null, n.pickupInstructions ?? null,
    n.notes ?? null, n.delivered,
    w.orderCompletion?.state ?? null, w.orderCompletion ? JSON.stringify(w.orderCompletion.snapshot) : null,
    eventMessage({
      ...w.event,
      orderId: n.orderId,
      shipmentId: w.old.id,
      from: { type: w.old.type, state: w.old.state },
      to: { type: n.type, state: n.state },
    }),
  ]);
  // No row: the old one was no longer live, which the order lock rules out; never half-write.
  if (!row) throw new Error(`shipment ${w.old.id} was not live under its order's lock`);
  return toShipmentRow(row);
}
