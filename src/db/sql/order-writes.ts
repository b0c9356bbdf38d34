import type { SqlTx } from '../client.ts';
import { named } from './named-params.ts';
import { shipmentBeforeOf, shipmentRowJson, shipmentWasCte, type ShipmentBefore } from './shipment-version.ts';

// The writes of the commands on an order itself (reject, cancel, its in-hand date), each under the
// order's lock the command holds; the event is appended after them (append-order-event.ts), in
// the same transaction.

const SET_STATE = named<{
  orderId: number;
  state: string;
  snapshot: string;
  closed: boolean;
  rejectionReason: string | null;
  rejectionNotes: string | null;
}>(
  (p) => `
update orders set state = ${p.state}::text, snapshot = ${p.snapshot}::text::jsonb,
  closed_at = case when ${p.closed}::boolean then fulfil_now() else closed_at end,
  rejection_reason = coalesce(${p.rejectionReason}::text, rejection_reason),
  rejection_notes = coalesce(${p.rejectionNotes}::text, rejection_notes)
where id = ${p.orderId}::bigint returning id`,
);

export async function setOrderState(
  tx: SqlTx,
  w: { orderId: number; state: string; snapshot: unknown; closed?: boolean; rejection?: { reason: string; notes: string | null } },
): Promise<void> {
  const rows = await tx.rows(
    SET_STATE.text,
    SET_STATE.params({
      orderId: w.orderId,
      state: w.state,
      snapshot: JSON.stringify(w.snapshot),
      closed: w.closed ?? false,
      rejectionReason: w.rejection?.reason ?? null,
      rejectionNotes: w.rejection?.notes ?? null,
    }),
  );
  if (rows.length !== 1) throw new Error(`order ${w.orderId} was not updated under its lock`);
}

// A canceled order's live shipment is canceled in place (it keeps its id, as a completion does);
// what it changed is returned for the cancellation's event (shipment-version.ts, shipmentBeforeOf),
// appended next in the same transaction.
const CANCEL_SHIPMENT = named<{ orderId: number; shipmentId: number; state: string; snapshot: string }>(
  (p) => `
with ${shipmentWasCte(`${p.shipmentId}::bigint`)},
n as (
  update shipments set state = ${p.state}::text, snapshot = ${p.snapshot}::text::jsonb
  where id = ${p.shipmentId}::bigint and order_id = ${p.orderId}::bigint and replaced_by is null
  returning id, ${shipmentRowJson('shipments')} as after
)
select n.id, ${shipmentBeforeOf('n.after')} as before from n`,
);

/** Cancels the live shipment in place; returns what it changed, for the event appended after it. */
export async function cancelLiveShipment(
  tx: SqlTx,
  w: { orderId: number; shipmentId: number; state: string; snapshot: unknown },
): Promise<ShipmentBefore> {
  const rows = await tx.rows<{ before: ShipmentBefore }>(
    CANCEL_SHIPMENT.text,
    CANCEL_SHIPMENT.params({ orderId: w.orderId, shipmentId: w.shipmentId, state: w.state, snapshot: JSON.stringify(w.snapshot) }),
  );
  if (rows.length !== 1) throw new Error(`shipment ${w.shipmentId} was not live under its order's lock`);
  return rows[0]!.before;
}

// A moved deadline is a new one: its timers may fire again (the fired marks of the old are cleared
// only when the moment changes, so writing the same date twice re-fires nothing).
const SET_DEADLINE = named<{ orderId: number; inHandOn: string; deliverBy: string; dueSoonAt: string }>(
  (p) => `
update orders set in_hand_on = ${p.inHandOn}::date, deliver_by = ${p.deliverBy}::timestamptz, due_soon_at = ${p.dueSoonAt}::timestamptz,
  due_soon_fired_at = case when due_soon_at is distinct from ${p.dueSoonAt}::timestamptz then null else due_soon_fired_at end,
  overdue_fired_at = case when deliver_by is distinct from ${p.deliverBy}::timestamptz then null else overdue_fired_at end
where id = ${p.orderId}::bigint returning id`,
);

export async function setOrderDeadline(
  tx: SqlTx,
  w: { orderId: number; inHandOn: string; deliverBy: Date; dueSoonAt: Date },
): Promise<void> {
  const rows = await tx.rows(
    SET_DEADLINE.text,
    SET_DEADLINE.params({
      orderId: w.orderId,
      inHandOn: w.inHandOn,
      deliverBy: w.deliverBy.toISOString(),
      dueSoonAt: w.dueSoonAt.toISOString(),
    }),
  );
  if (rows.length !== 1) throw new Error(`order ${w.orderId} was not updated under its lock`);
}
