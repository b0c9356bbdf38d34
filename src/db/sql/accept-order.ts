import type { SqlTx } from '../client.ts';
import type { ShipmentRow } from '../ops/shipment-rows.ts';
import { appendEventCtes, eventMessage, type EventFacts } from './append-event.ts';
import { named } from './named-params.ts';
import {
  insertColumnList,
  insertedColumns,
  insertValueList,
  NEW_VERSION_SETS,
  shipmentValues,
  type KeysOf,
  type ShipmentParams,
} from './shipment-columns.ts';
import { answerValues, storeAnswerCte, type Answer, type AnswerValues } from './store-result.ts';

/** The columns of the first shipment that the statement sets itself rather than take from the row. */
export const ACCEPT_SETS = {
  ...NEW_VERSION_SETS,
  orderId: 'o.id, the order the statement has just accepted: no order updated, no shipment inserted',
} as const;
const INSERTED = insertedColumns(ACCEPT_SETS);
type Inserted = KeysOf<typeof INSERTED>;

interface AcceptValues extends ShipmentParams<Inserted>, AnswerValues {
  orderId: number;
  orderState: string;
  orderSnapshot: string;
  reviewerId: number;
  seats: string | null;
  message: string;
}

// The order is accepted, its first shipment created (under the id drawn when the order was
// locked), the event appended and the command's answer stored: one statement.
export const ACCEPT = named<AcceptValues>(
  (p) => `
with o as (
  update orders set state = ${p.orderState}, snapshot = ${p.orderSnapshot}::text::jsonb, reviewer_id = ${p.reviewerId}::bigint,
    seats = ${p.seats}::text::jsonb, accepted_at = fulfil_now(), event_seq = event_seq + 1
  where id = ${p.orderId}::bigint returning id, event_seq
),
n as (
  insert into shipments (order_id, ${insertColumnList(INSERTED)})
  select o.id, ${insertValueList(INSERTED, p)} from o
  returning id
),
${appendEventCtes(p.message)},
${storeAnswerCte(p)}
select n.id from n`,
);

export interface AcceptWrite {
  order: { id: number; state: string; snapshot: unknown; reviewerId: number; seats: number[] | null };
  shipment: ShipmentRow;
  event: Omit<EventFacts, 'orderId' | 'shipmentId' | 'from' | 'to' | 'kind'>;
  answer: Answer;
}

export async function acceptOrder(tx: SqlTx, w: AcceptWrite): Promise<void> {
  const s = w.shipment;
  const rows = await tx.finish(
    ACCEPT.text,
    ACCEPT.params({
      ...shipmentValues(s, INSERTED),
      orderId: w.order.id,
      orderState: w.order.state,
      orderSnapshot: JSON.stringify(w.order.snapshot),
      reviewerId: w.order.reviewerId,
      seats: w.order.seats === null ? null : JSON.stringify(w.order.seats),
      message: eventMessage({
        ...w.event,
        orderId: w.order.id,
        shipmentId: null,
        from: null,
        to: { type: s.type, state: s.state },
        kind: 'created',
      }),
      ...answerValues(w.answer),
    }),
  );
  if (rows.length !== 1) throw new Error(`order ${w.order.id} was not accepted under its lock`);
}
