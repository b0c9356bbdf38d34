import { OPEN_ORDER_STATES } from '../../machines/index.ts';
import { InvalidTransition, type HoldEventKind } from '@fulfil/contract';
import type { SqlTx } from '../db/client.ts';
import { appendOrderEvent } from '../db/sql/append-order-event.ts';
import { holdsOfOrder, markReleased, type HoldActor, type HoldRow } from '../db/sql/holds.ts';
import { holdEventJson } from './hold-json.ts';
import { extensionOf } from './hold-rules.ts';

/** The order as a release needs it, read under its lock. */
interface HeldOrder {
  id: number;
  state: string;
  deliverBy: Date | null;
  eventStartsAt: Date | null;
  shipment: { id: number; type: string; state: string } | null;
}

const ORDER = `select o.id, o.state, o.deliver_by as "deliverBy", o.event_starts_at as "eventStartsAt",
  (select json_build_object('id', s.id, 'type', s.type, 'state', s.state) from shipments s where s.order_id = o.id and s.replaced_by is null) as shipment
  from orders o where o.id = $1::bigint`;

// The deadline moved later: its timers fire again only where the new moment is still to come.
const EXTEND = `update orders set deliver_by = $2::timestamptz, due_soon_at = due_soon_at + ($3::bigint * interval '1 millisecond'),
  overdue_fired_at = case when $2::timestamptz > $4::timestamptz then null else overdue_fired_at end,
  due_soon_fired_at = case when due_soon_at + ($3::bigint * interval '1 millisecond') > $4::timestamptz then null else due_soon_fired_at end
  where id = $1::bigint returning id`;

/** The event's actor: a party's with its command, else the service's with why (an operator, release_at). */
export type HoldEventActor =
  { brokerageId: number; userId: number | null; role: 'seller' | 'buyer'; commandId: string } | { reason: 'operator' | 'release_at' };

export async function appendHoldEvent(
  tx: SqlTx,
  order: { id: number; shipment: { id: number; type: string; state: string } | null },
  kind: HoldEventKind,
  details: Record<string, unknown>,
  by: HoldEventActor,
): Promise<void> {
  const at = order.shipment ? { type: order.shipment.type, state: order.shipment.state } : null;
  const base = { orderId: order.id, kind, shipmentId: order.shipment?.id ?? null, from: at, to: at, details };
  await appendOrderEvent(
    tx,
    'reason' in by
      ? { ...base, actor: { type: 'system', reason: by.reason === 'operator' ? 'operator_hold' : 'hold_release_at' } }
      : { ...base, actor: { brokerageId: by.brokerageId, userId: by.userId, role: by.role }, commandId: by.commandId },
  );
}

/**
 * Releases an active hold of an order whose lock the caller holds, at `at` (the order's time):
 * `order.hold_released` with the hold as it now reads, and, when the time it held gives the seller
 * time back (D-213, D-214), deliver_by moved later by it (never past the event's start) with
 * `order.deadline_extended`. A hold already released is 422; the timer's run checks first.
 */
export async function releaseHoldIn(
  tx: SqlTx,
  hold: HoldRow,
  r: { at: Date; by: HoldActor; why: 'released' | 'release_at'; notes?: string | null; actor: HoldEventActor },
): Promise<HoldRow> {
  if (hold.releasedAt) throw new InvalidTransition(`hold ${hold.id} was already released at ${hold.releasedAt.toISOString()}`);
  const [raw] = await tx.rows<HeldOrder & { deliverBy: string | null; eventStartsAt: string | null }>(ORDER, [hold.orderId]);
  const order: HeldOrder = {
    ...raw!,
    id: Number(raw!.id),
    deliverBy: raw!.deliverBy ? new Date(raw!.deliverBy) : null,
    eventStartsAt: raw!.eventStartsAt ? new Date(raw!.eventStartsAt) : null,
  };
  const all = await holdsOfOrder(tx, hold.orderId);
  const wanted = extensionOf({ ...hold, releasedAt: r.at }, all);
  let extendedMs = 0;
  let deliverBy = order.deliverBy;
  if (wanted > 0 && order.deliverBy && (OPEN_ORDER_STATES as readonly string[]).includes(order.state)) {
    const cap = order.eventStartsAt?.getTime() ?? Infinity;
    const moved = Math.max(order.deliverBy.getTime(), Math.min(order.deliverBy.getTime() + wanted, cap));
    extendedMs = moved - order.deliverBy.getTime();
    if (extendedMs > 0) {
      deliverBy = new Date(moved);
      await tx.rows(EXTEND, [order.id, deliverBy.toISOString(), extendedMs, r.at.toISOString()]);
    }
  }
  const released = await markReleased(tx, hold.id, { at: r.at, by: r.by, why: r.why, extendedMs });
  if (!released) throw new InvalidTransition(`hold ${hold.id} was already released`);
  await appendHoldEvent(tx, order, 'hold_released', { hold: holdEventJson(released), release_why: r.why, notes: r.notes ?? null }, r.actor);
  if (extendedMs > 0) {
    await appendHoldEvent(
      tx,
      order,
      'deadline_extended',
      {
        reason: hold.reason,
        hold_id: hold.id,
        extended_ms: extendedMs,
        previous_deliver_by: order.deliverBy!.toISOString(),
        deliver_by: deliverBy!.toISOString(),
        capped_at_event_start: extendedMs < wanted,
      },
      r.actor,
    );
  }
  return released;
}
