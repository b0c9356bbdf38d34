import type { Database, SqlRunner, SqlTx } from '../db/client.ts';
import { issueById, stepIssue } from '../db/sql/delivery-issues.ts';
import { applyIssueEvent } from '../../machines/index.ts';
import { appendIssueEvent } from '../domain/delivery-issue-access.ts';
import { ESCALATION_KIND, type TimerJob } from './deadline-timers.ts';
import type { FireOutcome } from './fire-timer.ts';

/**
 * The escalation timer of a delivery issue (docs/RELIABILITY.md): Postgres holds when it is due
 * (delivery_issues.respond_by of the order's open issue) and whether it fired (the issue is no
 * longer open); Redis holds one delayed job per order (an order has at most one undecided issue),
 * on the deadline timers' queue, which only says "look now". The run below decides under the
 * order's lock, so a job run twice, late, after a FLUSHALL and the sweep's re-arming, or beside a
 * restarted Postgres escalates the issue once; a job for an answered issue does nothing.
 */

/** The system actor's reason on an automatic escalation's event. */
export const ESCALATION_REASON = 'response_window_passed';

const OPEN_ISSUE = `select id, order_id as "orderId", respond_by as "respondBy" from delivery_issues where state = 'open'`;
// Wall-clock issues only: an order on a test clock has its timers fired by the clock's advance.
const ON_WALL_CLOCK = `not exists (select 1 from orders o where o.id = delivery_issues.order_id and o.test_clock_id is not null)`;

/** The order's escalation timer to arm: its open issue's respond_by; none when no issue is open. */
export async function escalationTimerOf(db: SqlRunner, orderId: number): Promise<TimerJob | undefined> {
  const [row] = await db.rows<{ orderId: string; respondBy: Date | string }>(
    `${OPEN_ISSUE} and order_id = $1::bigint and ${ON_WALL_CLOCK}`,
    [orderId],
  );
  return row && { orderId: Number(row.orderId), kind: ESCALATION_KIND, dueAt: new Date(row.respondBy).getTime() };
}

/** Every open issue's timer, a page at a time (delivery_issues_open_respond_by_idx), for the sweep. */
export async function* openEscalations(db: SqlRunner, pageSize = 5_000): AsyncGenerator<TimerJob[]> {
  let afterId = 0;
  for (;;) {
    const rows = await db.rows<{ id: string; orderId: string; respondBy: Date | string }>(
      `${OPEN_ISSUE} and id > $1::bigint and ${ON_WALL_CLOCK} order by id limit $2::int`,
      [afterId, pageSize],
    );
    if (rows.length === 0) return;
    yield rows.map((r) => ({ orderId: Number(r.orderId), kind: ESCALATION_KIND, dueAt: new Date(r.respondBy).getTime() }));
    afterId = Number(rows[rows.length - 1]!.id);
    if (rows.length < pageSize) return;
  }
}

/** The escalation timers of a test clock's orders due by `upTo`, earliest first (its advance). */
export async function escalationsOnClock(db: SqlRunner, clockId: number, upTo: Date, limit: number): Promise<TimerJob[]> {
  const rows = await db.rows<{ orderId: string; respondBy: Date | string }>(
    `${OPEN_ISSUE} and respond_by <= $2::timestamptz
       and order_id in (select id from orders where test_clock_id = $1::bigint) order by respond_by, order_id limit $3::int`,
    [clockId, upTo.toISOString(), limit],
  );
  return rows.map((r) => ({ orderId: Number(r.orderId), kind: ESCALATION_KIND, dueAt: new Date(r.respondBy).getTime() }));
}

/**
 * One run of an order's escalation timer, in one transaction under the order's lock: the open
 * issue past its respond_by is escalated by the system (the machine's ESCALATE by system) and its
 * event appended; an issue answered, resolved or already escalated is left as it is.
 */
export async function fireEscalation(database: Database, orderId: number, now = Date.now()): Promise<FireOutcome> {
  return database.transaction((tx) => fireEscalationIn(tx, orderId, now));
}

/** fireEscalation's work in the caller's transaction (a test clock's advance fires many in one). */
export async function fireEscalationIn(tx: SqlTx, orderId: number, now: number): Promise<FireOutcome> {
  {
    const [order] = await tx.rows<{ id: string }>(`select id from orders where id = $1::bigint for update`, [orderId]);
    if (!order) return { kind: 'no_deadline' };
    const [open] = await tx.rows<{ id: string }>(`${OPEN_ISSUE} and order_id = $1::bigint`, [orderId]);
    if (!open) return { kind: 'finished' };
    const issue = (await issueById(tx, Number(open.id)))!;
    const dueAt = issue.respondBy.getTime();
    if (dueAt > now) return { kind: 'not_due', dueAt };
    const result = applyIssueEvent(issue.snapshot, { type: 'ESCALATE', by: 'system' });
    if (!result.ok) return { kind: 'already_fired' };
    const after = await stepIssue(tx, issue.id, {
      state: result.state,
      snapshot: result.snapshot,
      at: new Date(now),
      escalatedBy: 'system',
    });
    const [live] = await tx.rows<{ id: string; type: string; state: string }>(
      `select id, type, state from shipments where order_id = $1::bigint and replaced_by is null`,
      [orderId],
    );
    await appendIssueEvent(tx, {
      issue: after,
      kind: 'delivery_issue_escalated',
      shipment: live ? { ...live, id: Number(live.id) } : null,
      by: { reason: ESCALATION_REASON },
      details: { respond_by: issue.respondBy.toISOString() },
    });
    return { kind: 'fired', dueAt };
  }
}
