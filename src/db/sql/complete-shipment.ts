import type { SqlTx } from '../client.ts';
import type { ShipmentRow } from '../ops/shipment-rows.ts';
import { appendEventCtes, eventMessage, type EventFacts } from './append-event.ts';
import { named } from './named-params.ts';
import { shipmentBeforeOf, shipmentRowJson, shipmentWasCte } from './shipment-version.ts';
import { answerValues, storeAnswerCte, type Answer, type AnswerValues } from './store-result.ts';

// Complete keeps the shipment's id (it is not an update): the row changes in place, the order
// completes, the event is appended and the answer stored, in one statement. The order id in the
// shipment's WHERE makes it one probe whichever index the planner takes (replace-shipment.ts).
// The completion's event names what it changed (shipment-version.ts, shipmentBeforeOf), so the
// event that made this version still shows it as it left it, however late it is delivered or read.
const COMPLETE = named<CompleteValues>(
  (p) => `
with ${shipmentWasCte(`${p.shipmentId}::bigint`)},
n as (
  update shipments set state = ${p.state}, snapshot = ${p.snapshot}::text::jsonb, x_mobile_link = ${p.xMobileLink},
    transfer_source = ${p.transferSource}, delivered_at = fulfil_now()
  where id = ${p.shipmentId}::bigint and order_id = ${p.orderId}::bigint and replaced_by is null
  returning id, ${shipmentRowJson('shipments')} as after
),
o as (
  update orders set state = ${p.orderState}, snapshot = ${p.orderSnapshot}::text::jsonb, completed_at = fulfil_now(),
    event_seq = orders.event_seq + 1
  from n where orders.id = ${p.orderId}::bigint returning orders.id, orders.event_seq
),
${appendEventCtes(p.message, 'true', shipmentBeforeOf('n.after'))},
${storeAnswerCte(p)}
select n.id from n`,
);

interface CompleteValues extends AnswerValues {
  shipmentId: number;
  state: string;
  snapshot: string;
  xMobileLink: string | null;
  transferSource: string | null;
  orderId: number;
  orderState: string;
  orderSnapshot: string;
  message: string;
}

export interface CompleteWrite {
  old: ShipmentRow;
  completed: ShipmentRow;
  order: { id: number; state: string; snapshot: unknown };
  event: Omit<EventFacts, 'orderId' | 'shipmentId' | 'from' | 'to' | 'kind'>;
  answer: Answer;
}

export async function completeShipment(tx: SqlTx, w: CompleteWrite): Promise<void> {
  const c = w.completed;
  const rows = await tx.finish(
    COMPLETE.text,
    COMPLETE.params({
      shipmentId: c.id,
      state: c.state,
      snapshot: JSON.stringify(c.snapshot),
      xMobileLink: c.xMobileLink,
      transferSource: c.transferSource,
      orderId: w.order.id,
      orderState: w.order.state,
      orderSnapshot: JSON.stringify(w.order.snapshot),
      message: eventMessage({
        ...w.event,
        kind: 'completed',
        orderId: w.order.id,
        shipmentId: w.old.id,
        from: { type: w.old.type, state: w.old.state },
        to: { type: c.type, state: c.state },
      }),
      ...answerValues(w.answer),
    }),
  );
  if (rows.length !== 1) throw new Error(`shipment ${c.id} was not live under its order's lock`);
}
