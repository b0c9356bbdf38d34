import type { Database, SqlRunner } from '../db/client.ts';
import { appendEventCtes, eventMessage } from '../db/sql/append-event.ts';
import { named } from '../db/sql/named-params.ts';
import { TIMER_REASONS, type TimerKind } from './deadline-timers.ts';

/** What a timer's run did: fired its event, found it not yet due (moved later), or had nothing to do. */
export type FireOutcome =
  // `next`: the same order's timer of this kind has another time still to come (the carrier
  // simulator's next scan): the job is delayed to it rather than done.
  // `rearm`: the run changed the order's other timers (a hold released: its deadline timers wait no more).
  | { kind: 'fired'; dueAt: number; next?: number; rearm?: true }
  | { kind: 'not_due'; dueAt: number }
  | { kind: 'already_fired' | 'finished' | 'no_deadline' }
  // The order is on hold (D-216): its deadline waits; the hold's release arms it again, moved.
  | { kind: 'held' }
  // A mailed shipment in transit whose carrier expects it by the deadline: not overdue yet. The
  // timer stays unfired, so the sweep's next run decides again (a scan may deliver it, or an
  // exception make it overdue after all).
  | { kind: 'on_time_in_transit' };

interface Locked {
  id: number;
  open: boolean;
  inHandOn: string | null;
  deliverBy: Date | null;
  dueAt: Date | null;
  fired: boolean;
  held: boolean;
  shipment: { id: number; type: string; state: string; estimatedDeliveryAt: string | null } | null;
}

// Locked in id order: two batches that share orders (a redelivered job beside its sweep-armed
// copy) take their locks in the same order, so they queue behind each other, never deadlock.
const lockFor = (kind: TimerKind) =>
  named<{ orderIds: number[] }>(
    (p) => `
select id, state in ('pending', 'accepted', 'cancel_proposed') as open, in_hand_on::text as "inHandOn", deliver_by as "deliverBy",
  ${kind === 'due_soon' ? 'due_soon_at' : 'deliver_by'} as "dueAt", ${kind}_fired_at is not null as fired,
  exists (select 1 from holds h where h.order_id = orders.id and h.released_at is null) as held,
  (select json_build_object('id', s.id, 'type', s.type, 'state', s.state, 'estimatedDeliveryAt', s.estimated_delivery_at) from shipments s
    where s.order_id = orders.id and s.replaced_by is null) as shipment
from orders where id = any(${p.orderIds}::bigint[]) order by id for update`,
  );
const LOCK = { due_soon: lockFor('due_soon'), overdue: lockFor('overdue') };

// Every due timer of the batch marked fired and its event appended in one statement, sent with
// the COMMIT: a batch costs two round trips (the lock, this) and one WAL flush, whatever its size.
const fire = (kind: TimerKind) =>
  named<{ orderIds: number[]; messages: string[] }>(
    (p) => `
with f as (select * from unnest(${p.orderIds}::bigint[], ${p.messages}::text[]) as f(order_id, message)),
o as (update orders set ${kind}_fired_at = fulfil_now(), event_seq = event_seq + 1 from f where orders.id = f.order_id
      returning orders.id, orders.event_seq, f.message),
n as (select s.id, s.order_id from shipments s join f on s.order_id = f.order_id where s.replaced_by is null),
${appendEventCtes('o.message', 'n.order_id = o.id')}
select m.event_seq from m`,
  );
const FIRE = { due_soon: fire('due_soon'), overdue: fire('overdue') };

/** What a locked order's timer does now; the event message when it fires. */
function decide(row: Locked | undefined, kind: TimerKind, now: number): { outcome: FireOutcome; message?: string } {
  if (!row) return { outcome: { kind: 'no_deadline' } };
  if (!row.open) return { outcome: { kind: 'finished' } };
  if (!row.dueAt || !row.deliverBy) return { outcome: { kind: 'no_deadline' } };
  if (row.fired) return { outcome: { kind: 'already_fired' } };
  if (row.held) return { outcome: { kind: 'held' } };
  const dueAt = new Date(row.dueAt).getTime();
  if (dueAt > now) return { outcome: { kind: 'not_due', dueAt } };
  const estimate = row.shipment?.state === 'in_transit' ? row.shipment.estimatedDeliveryAt : null;
  if (kind === 'overdue' && estimate && Date.parse(estimate) <= new Date(row.deliverBy).getTime()) {
    return { outcome: { kind: 'on_time_in_transit' } };
  }
  const at = row.shipment ? { type: row.shipment.type, state: row.shipment.state } : null;
  const message = eventMessage({
    orderId: row.id,
    kind,
    shipmentId: row.shipment?.id ?? null,
    from: at,
    to: at,
    details: { deliver_by: new Date(row.deliverBy).toISOString(), in_hand_on: row.inHandOn, due_at: new Date(dueAt).toISOString() },
    actor: { type: 'system', reason: TIMER_REASONS[kind] },
  });
  return { outcome: { kind: 'fired', dueAt }, message };
}

/**
 * One run of a batch of one kind's timers, in one transaction. Under the orders' locks, Postgres
 * decides: each event is appended and its timer marked fired in that transaction, only while the
 * order is open, the timer unfired and its time come. So a job run twice, late, after a restore
 * or beside a sweep's re-armed copy emits its event at most once, and never for a finished order;
 * one run early (its deadline moved later) answers when it is due. An order named twice in the
 * batch fires once; its other runs answer already_fired. Outcomes come in the order of orderIds;
 * a failure fails the whole batch (nothing of it committed).
 */
export async function fireTimers(
  database: Database,
  kind: TimerKind,
  orderIds: readonly number[],
  now = Date.now(),
): Promise<FireOutcome[]> {
  // The marking statement goes with the COMMIT: one round trip for both.
  return database.transaction((tx) => fireTimersIn(tx, kind, orderIds, now, (text, params) => tx.finish(text, params)));
}

/**
 * fireTimers' work in the caller's transaction (a test clock's advance fires many timers in one).
 * `send` runs the marking statement: the transaction's last one when the caller commits with it.
 */
export async function fireTimersIn(
  tx: SqlRunner,
  kind: TimerKind,
  orderIds: readonly number[],
  now: number,
  send: (text: string, params: readonly unknown[]) => Promise<object[]> = (text, params) => tx.rows(text, params),
): Promise<FireOutcome[]> {
  const unique = [...new Set(orderIds)];
  const rows = await tx.rows<Locked>(LOCK[kind].text, LOCK[kind].params({ orderIds: unique }));
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  const decided = new Map(unique.map((id) => [id, decide(byId.get(id), kind, now)]));
  const due = unique.filter((id) => decided.get(id)!.message !== undefined);
  if (due.length > 0) {
    const messages = due.map((id) => decided.get(id)!.message!);
    const fired = await send(FIRE[kind].text, FIRE[kind].params({ orderIds: due, messages }));
    if (fired.length !== due.length) throw new Error(`${due.length} ${kind} timers due, ${fired.length} marked under their locks`);
  }
  const seen = new Set<number>();
  return orderIds.map((id): FireOutcome => {
    const { outcome } = decided.get(id)!;
    if (outcome.kind === 'fired' && seen.has(id)) return { kind: 'already_fired' };
    seen.add(id);
    return outcome;
  });
}

/** One timer's run: a batch of one (fireTimers), so there is one definition of how a timer fires. */
export async function fireTimer(database: Database, orderId: number, kind: TimerKind, now = Date.now()): Promise<FireOutcome> {
  const [outcome] = await fireTimers(database, kind, [orderId], now);
  return outcome!;
}
