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

/**
 * The replacement's columns that the statement sets itself; every other column is carried into
 * the insert from the row it is given (the worker builds that row from the old one, overlaid).
 */
export const REPLACE_SETS = {
  ...NEW_VERSION_SETS,
  id: "the tombstone's RETURNING (the id drawn for the replacement): no tombstone, no insert",
  deliveredAt: "fulfil_now() when the replacement is delivered: the transaction's clock, as the order's completed_at",
} as const;
const CARRIED = insertedColumns(REPLACE_SETS);
type Carried = KeysOf<typeof CARRIED>;

interface ReplaceValues extends ShipmentParams<Carried>, AnswerValues {
  oldId: number;
  nextId: number;
  delivered: boolean;
  /** The order's new state and snapshot when the replacement completes it; null otherwise. */
  orderState: string | null;
  orderSnapshot: string | null;
  message: string;
}

/**
 * Rule U1 in one statement: the old row becomes a tombstone naming its replacement, the
 * replacement is inserted under the id drawn when the live shipment was read, the order's event
 * counter moves (and, when the replacement is delivered, the order completes), the event is
 * appended and the command's answer stored. Each part reads from the one before (the insert
 * from the tombstone's RETURNING, the order from the insert's): the tombstone is written first, so
 * the one-live-shipment-per-order index never sees two live rows, and if the old row was not live
 * nothing at all is written.
 */
// The tombstone names the order too: the index of an order's versions (order_id, replaced_by;
// drizzle/0021) then finds the live row in one probe, as the primary key does. Without it, a planner whose statistics still saw the
// table small scanned that whole index for the id (about 1,000 pages a command in the bench).
export const REPLACE = named<ReplaceValues>(
  (p) => `
with t as (
  update shipments set replaced_by = ${p.nextId}::bigint, replaced_at = fulfil_now()
  where id = ${p.oldId}::bigint and order_id = ${p['shipment.orderId']}::bigint and replaced_by is null returning replaced_by as id
),
n as (
  insert into shipments (id, ${insertColumnList(CARRIED)}, delivered_at)
  select t.id, ${insertValueList(CARRIED, p)}, case when ${p.delivered}::boolean then fulfil_now() end
  from t
  returning id
),
o as (
  update orders set event_seq = orders.event_seq + 1, state = coalesce(${p.orderState}::text, orders.state),
    snapshot = coalesce(${p.orderSnapshot}::text::jsonb, orders.snapshot),
    completed_at = case when ${p.orderState}::text is null then orders.completed_at else fulfil_now() end
  from n where orders.id = ${p['shipment.orderId']}::bigint returning orders.id, orders.event_seq
),
${appendEventCtes(p.message)},
${storeAnswerCte(p)}
select n.id from n`,
);

export interface ReplaceWrite {
  old: ShipmentRow;
  next: ShipmentRow;
  /** The order's new state and snapshot when the replacement completes it. */
  orderCompletion: { state: string; snapshot: unknown } | null;
  event: Omit<EventFacts, 'orderId' | 'shipmentId' | 'from' | 'to'>;
  answer: Answer;
}

export async function replaceShipment(tx: SqlTx, w: ReplaceWrite): Promise<void> {
  const n = w.next;
  const rows = await tx.finish(
    REPLACE.text,
    REPLACE.params({
      ...shipmentValues(n, CARRIED),
      oldId: w.old.id,
      nextId: n.id,
      delivered: n.deliveredAt !== null,
      orderState: w.orderCompletion?.state ?? null,
      orderSnapshot: w.orderCompletion ? JSON.stringify(w.orderCompletion.snapshot) : null,
      message: eventMessage({
        ...w.event,
        orderId: n.orderId,
        shipmentId: w.old.id,
        from: { type: w.old.type, state: w.old.state },
        to: { type: n.type, state: n.state },
      }),
      ...answerValues(w.answer),
    }),
  );
  // No row: the old one was no longer live, which the order lock rules out. The statement then
  // wrote nothing and stored no answer; throwing makes the job try again from the start.
  if (rows.length !== 1) throw new Error(`shipment ${w.old.id} was not live under its order's lock`);
}
