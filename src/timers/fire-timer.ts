import type { Database } from '../db/client.ts';
import { appendOrderEvent } from '../db/sql/append-order-event.ts';
import { named } from '../db/sql/named-params.ts';
import { TIMER_REASONS, type TimerKind } from './deadline-timers.ts';

/** What a timer's run did: fired its event, found it not yet due (moved later), or had nothing to do. */
export type FireOutcome =
  { kind: 'fired'; dueAt: number } | { kind: 'not_due'; dueAt: number } | { kind: 'already_fired' | 'finished' | 'no_deadline' };

interface Locked {
  open: boolean;
  inHandOn: string | null;
  deliverBy: Date | null;
  dueAt: Date | null;
  fired: boolean;
  shipment: { id: number; type: string; state: string } | null;
}

const lockFor = (kind: TimerKind) =>
  named<{ orderId: number }>(
    (p) => `
select state in ('pending', 'accepted', 'cancel_proposed') as open, in_hand_on::text as "inHandOn", deliver_by as "deliverBy",
  ${kind === 'due_soon' ? 'due_soon_at' : 'deliver_by'} as "dueAt", ${kind}_fired_at is not null as fired,
  (select json_build_object('id', s.id, 'type', s.type, 'state', s.state) from shipments s
    where s.order_id = orders.id and s.replaced_by is null) as shipment
from orders where id = ${p.orderId}::bigint for update`,
  );
const LOCK = { due_soon: lockFor('due_soon'), overdue: lockFor('overdue') };

const markFired = (kind: TimerKind) =>
  named<{ orderId: number }>((p) => `update orders set ${kind}_fired_at = now() where id = ${p.orderId}::bigint`);
const MARK = { due_soon: markFired('due_soon'), overdue: markFired('overdue') };

/**
 * One run of a timer. Under the order's lock, Postgres decides: the event is appended and the
 * timer marked fired in one transaction, only while the order is open, the timer unfired and its
 * time come. So a job run twice, late, after a restore or beside a sweep's re-armed copy emits
 * its event at most once, and never for a finished order; one run early (its deadline moved
 * later) answers when it is due.
 */
export async function fireTimer(database: Database, orderId: number, kind: TimerKind, now = Date.now()): Promise<FireOutcome> {
  return database.transaction(async (tx) => {
    const [row] = await tx.rows<Locked>(LOCK[kind].text, LOCK[kind].params({ orderId }));
    if (!row) return { kind: 'no_deadline' };
    if (!row.open) return { kind: 'finished' };
    if (!row.dueAt || !row.deliverBy) return { kind: 'no_deadline' };
    if (row.fired) return { kind: 'already_fired' };
    const dueAt = new Date(row.dueAt).getTime();
    if (dueAt > now) return { kind: 'not_due', dueAt };
    await tx.rows(MARK[kind].text, MARK[kind].params({ orderId }));
    const at = row.shipment ? { type: row.shipment.type, state: row.shipment.state } : null;
    await appendOrderEvent(tx, {
      orderId,
      kind,
      shipmentId: row.shipment?.id ?? null,
      from: at,
      to: at,
      details: { deliver_by: new Date(row.deliverBy).toISOString(), in_hand_on: row.inHandOn, due_at: new Date(dueAt).toISOString() },
      actor: { type: 'system', reason: TIMER_REASONS[kind] },
    });
    return { kind: 'fired', dueAt };
  });
}
