import type { SqlTx } from '../client.ts';
import type { ShipmentRow } from '../ops/shipment-rows.ts';
import { appendEventCtes, eventMessage, type EventFacts } from './append-event.ts';
import { answerParams, storeAnswerCte, type Answer } from './store-result.ts';

// Complete keeps the shipment's id (it is not an update): the row changes in place, the order
// completes, the event is appended and the answer stored, in one statement. The order id in the
// shipment's WHERE makes it one probe whichever index the planner takes (replace-shipment.ts).
const COMPLETE = `
with n as (
  update shipments set state = $2, snapshot = $3::text::jsonb, x_mobile_link = $4, transfer_source = $5, delivered_at = now()
  where id = $1::bigint and order_id = $6::bigint and replaced_by is null returning id
),
o as (
  update orders set state = $7, snapshot = $8::text::jsonb, completed_at = now(), event_seq = orders.event_seq + 1
  from n where orders.id = $6::bigint returning orders.id, orders.event_seq
),
${appendEventCtes('$9')},
${storeAnswerCte('$10', '$11', '$12')}
select n.id from n`;

export interface CompleteWrite {
  old: ShipmentRow;
  completed: ShipmentRow;
  order: { id: number; state: string; snapshot: unknown };
  event: Omit<EventFacts, 'orderId' | 'shipmentId' | 'from' | 'to' | 'kind'>;
  answer: Answer;
}

export async function completeShipment(tx: SqlTx, w: CompleteWrite): Promise<void> {
  const c = w.completed;
  const rows = await tx.finish(COMPLETE, [
    c.id,
    c.state,
    JSON.stringify(c.snapshot),
    c.xMobileLink,
    c.transferSource,
    w.order.id,
    w.order.state,
    JSON.stringify(w.order.snapshot),
    eventMessage({
      ...w.event,
      kind: 'completed',
      orderId: w.order.id,
      shipmentId: w.old.id,
      from: { type: w.old.type, state: w.old.state },
      to: { type: c.type, state: c.state },
    }),
    ...answerParams(w.answer),
  ]);
  if (rows.length !== 1) throw new Error(`shipment ${c.id} was not live under its order's lock`);
}
