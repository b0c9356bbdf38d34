import type { SqlRunner } from '../client.ts';
import type { ShipmentRow } from '../ops/shipment-rows.ts';
import { appendEventCtes, eventMessage, type EventFacts } from './append-event.ts';
import { shipmentColumns, toShipmentRow } from './shipment-columns.ts';

// Complete keeps the shipment's id (it is not an update): the row changes in place, the order
// completes and the event is appended, in one statement.
const COMPLETE = `
with n as (
  update shipments set state = $2, snapshot = $3::text::jsonb, x_mobile_link = $4, transfer_source = $5, delivered_at = now()
  where id = $1::bigint returning ${shipmentColumns('')}
),
o as (
  update orders set state = $7, snapshot = $8::text::jsonb, completed_at = now(), event_seq = event_seq + 1
  where id = $6::bigint returning id, event_seq
),
${appendEventCtes('$9')}
select * from n`;

export interface CompleteWrite {
  old: ShipmentRow;
  shipment: { state: string; snapshot: unknown; xMobileLink: string | null; transferSource: string | null };
  order: { id: number; state: string; snapshot: unknown };
  event: Omit<EventFacts, 'orderId' | 'shipmentId' | 'from' | 'to' | 'kind'>;
}

export async function completeShipment(tx: SqlRunner, w: CompleteWrite): Promise<ShipmentRow> {
  const [row] = await tx.rows<Record<string, unknown>>(COMPLETE, [
    w.old.id, w.shipment.state, JSON.stringify(w.shipment.snapshot), w.shipment.xMobileLink, w.shipment.transferSource,
    w.order.id, w.order.state, JSON.stringify(w.order.snapshot),
    eventMessage({
      ...w.event,
      kind: 'completed',
      orderId: w.order.id,
      shipmentId: w.old.id,
      from: { type: w.old.type, state: w.old.state },
      to: { type: w.old.type, state: w.shipment.state },
    }),
  ]);
  return toShipmentRow(row!);
}
