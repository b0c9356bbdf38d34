import type { Database } from '../db/client.ts';
import { appendEventCtes, eventMessage } from '../db/sql/append-event.ts';
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

// The timer marked fired and its event appended in one statement, sent with the COMMIT: a timer
// costs two round trips (the lock, this), which is what 1,000 due a second asks of a worker.
const fire = (kind: TimerKind) =>
  named<{ orderId: number; message: string }>(
    (p) => `
with o as (update orders set ${kind}_fired_at = now(), event_seq = event_seq + 1 where id = ${p.orderId}::bigint returning id, event_seq),
n as (select id from shipments where order_id = ${p.orderId}::bigint and replaced_by is null),
${appendEventCtes(p.message)}
select m.event_seq from m`,
  );
const FIRE = { due_soon: fire('due_soon'), overdue: fire('overdue') };

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
    const at = row.shipment ? { type: row.shipment.type, state: row.shipment.state } : null;
    const message = eventMessage({
      orderId,
      kind,
      shipmentId: row.shipment?.id ?? null,
      from: at,
      to: at,
      details: { deliver_by: new Date(row.deliverBy).toISOString(), in_hand_on: row.inHandOn, due_at: new Date(dueAt).toISOString() },
      actor: { type: 'system', reason: TIMER_REASONS[kind] },
    });
    const fired = await tx.finish(FIRE[kind].text, FIRE[kind].params({ orderId, message }));
    if (fired.length !== 1) throw new Error(`order ${orderId}: the ${kind} timer was not marked under its lock`);
    return { kind: 'fired', dueAt };
  });
}
