import type { SqlTx } from '../client.ts';
import type { ShipmentRow } from '../ops/shipment-rows.ts';
import { appendEventCtes, eventMessage, type EventFacts } from './append-event.ts';
import { answerParams, storeAnswerCte, type Answer } from './store-result.ts';

// The order is accepted, its first shipment created (under the id drawn when the order was
// locked), the event appended and the command's answer stored: one statement.
const ACCEPT = `
with o as (
  update orders set state = $2, snapshot = $3::text::jsonb, reviewer_id = $4::bigint, seats = $5::text::jsonb,
    accepted_at = now(), event_seq = event_seq + 1
  where id = $1::bigint returning id, event_seq
),
n as (
  insert into shipments (id, order_id, type, state, snapshot, ship_to_name, email_address_id)
  select $6::bigint, o.id, $7, $8, $9::text::jsonb, $10, $11::bigint from o
  returning id
),
${appendEventCtes('$12')},
${storeAnswerCte('$13', '$14', '$15')}
select n.id from n`;

export interface AcceptWrite {
  order: { id: number; state: string; snapshot: unknown; reviewerId: number; seats: number[] | null };
  shipment: ShipmentRow;
  event: Omit<EventFacts, 'orderId' | 'shipmentId' | 'from' | 'to' | 'kind'>;
  answer: Answer;
}

export async function acceptOrder(tx: SqlTx, w: AcceptWrite): Promise<void> {
  const s = w.shipment;
  const rows = await tx.finish(ACCEPT, [
    w.order.id,
    w.order.state,
    JSON.stringify(w.order.snapshot),
    w.order.reviewerId,
    w.order.seats === null ? null : JSON.stringify(w.order.seats),
    s.id,
    s.type,
    s.state,
    JSON.stringify(s.snapshot),
    s.shipToName,
    s.emailAddressId,
    eventMessage({ ...w.event, orderId: w.order.id, shipmentId: null, from: null, to: { type: s.type, state: s.state }, kind: 'created' }),
    ...answerParams(w.answer),
  ]);
  if (rows.length !== 1) throw new Error(`order ${w.order.id} was not accepted under its lock`);
}
