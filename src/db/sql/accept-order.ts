import type { SqlRunner } from '../client.ts';
import type { ShipmentRow } from '../ops/shipment-rows.ts';
import { appendEventCtes, eventMessage, type EventFacts } from './append-event.ts';
import { shipmentColumns, toShipmentRow } from './shipment-columns.ts';

// The order is accepted, its first shipment created, and the event appended: one statement.
const ACCEPT = `
with o as (
  update orders set state = $2, snapshot = $3::text::jsonb, reviewer_id = $4::bigint, seats = $5::text::jsonb,
    accepted_at = now(), event_seq = event_seq + 1
  where id = $1::bigint returning id, event_seq
),
n as (
  insert into shipments (order_id, type, state, snapshot, ship_to_name, email_address_id)
  select o.id, $6, $7, $8::text::jsonb, $9, $10::bigint from o
  returning ${shipmentColumns('')}
),
${appendEventCtes('$11')}
select * from n`;

export interface AcceptWrite {
  orderId: number;
  order: { state: string; snapshot: unknown; reviewerId: number; seats: number[] | null };
  shipment: { type: string; state: string; snapshot: unknown; shipToName: string | null; emailAddressId: number | null };
  event: Omit<EventFacts, 'orderId' | 'shipmentId' | 'from' | 'kind'>;
}

export async function acceptOrder(tx: SqlRunner, w: AcceptWrite): Promise<ShipmentRow> {
  const [row] = await tx.rows<Record<string, unknown>>(ACCEPT, [
    w.orderId, w.order.state, JSON.stringify(w.order.snapshot), w.order.reviewerId,
    w.order.seats === null ? null : JSON.stringify(w.order.seats),
    w.shipment.type, w.shipment.state, JSON.stringify(w.shipment.snapshot), w.shipment.shipToName, w.shipment.emailAddressId,
    eventMessage({ ...w.event, orderId: w.orderId, shipmentId: null, from: null, kind: 'created' }),
  ]);
  return toShipmentRow(row!);
}
