import type { SqlRunner, SqlTx } from '../db/client.ts';
import { activeHoldsOf } from '../db/sql/holds.ts';
import { releaseHoldIn } from '../domain/hold-release.ts';
import { HOLD_RELEASE_KIND, type TimerJob } from './deadline-timers.ts';
import type { FireOutcome } from './fire-timer.ts';

/**
 * A hold's `release_at` (D-215), a durable timer like the others: Postgres holds when each active
 * hold releases itself (holds.release_at, released_at null); Redis holds one delayed job per order,
 * for its earliest. The run releases, under the order's lock, every active hold of the order whose
 * time has come, so a job run twice, late or beside the sweep's re-armed copy releases each once.
 */

// The earliest self-releasing active hold per order.
const NEXT = `select h.order_id as id, min(h.release_at) as "dueAt" from holds h join orders o on o.id = h.order_id
  where h.released_at is null and h.release_at is not null`;

const jobOf = (r: { id: string | number; dueAt: Date | string }): TimerJob => ({
  orderId: Number(r.id),
  kind: HOLD_RELEASE_KIND,
  dueAt: new Date(r.dueAt).getTime(),
});

/** The order's release timer to arm; none without a self-releasing hold, or on a test clock (its advance fires it). */
export async function holdReleaseTimerOf(db: SqlRunner, orderId: number): Promise<TimerJob | undefined> {
  const [row] = await db.rows<{ id: string; dueAt: Date | string }>(
    `${NEXT} and o.test_clock_id is null and h.order_id = $1::bigint group by h.order_id`,
    [orderId],
  );
  return row && jobOf(row);
}

/** Every wall-clock order's release timer, a page at a time, for the sweep. */
export async function* openHoldReleases(db: SqlRunner, pageSize = 5_000): AsyncGenerator<TimerJob[]> {
  let afterId = 0;
  for (;;) {
    const rows = await db.rows<{ id: string; dueAt: Date | string }>(
      `${NEXT} and o.test_clock_id is null and h.order_id > $1::bigint group by h.order_id order by h.order_id limit $2::int`,
      [afterId, pageSize],
    );
    if (rows.length === 0) return;
    yield rows.map(jobOf);
    afterId = Number(rows[rows.length - 1]!.id);
    if (rows.length < pageSize) return;
  }
}

/** The release timers of a test clock's orders due by `upTo`, earliest first (its advance). */
export async function holdReleasesOnClock(db: SqlRunner, clockId: number, upTo: Date, limit: number): Promise<TimerJob[]> {
  const rows = await db.rows<{ id: string; dueAt: Date | string }>(
    `${NEXT} and o.test_clock_id = $1::bigint group by h.order_id having min(h.release_at) <= $2::timestamptz
     order by 2, 1 limit $3::int`,
    [clockId, upTo.toISOString(), limit],
  );
  return rows.map(jobOf);
}

/**
 * One run, in the caller's transaction: locks the order, releases its active holds due by `now`
 * (each `order.hold_released`, why `release_at`; the deadline moved as a release moves it), and
 * says when the next is due. `rearm`: the order's other timers changed (its deadline timers wait
 * no more, or moved), for the worker to arm after the commit.
 */
export async function fireHoldReleaseIn(tx: SqlTx, orderId: number, now: number): Promise<FireOutcome> {
  const [locked] = await tx.rows<{ id: string }>(`select id from orders where id = $1::bigint for update`, [orderId]);
  if (!locked) return { kind: 'finished' };
  const timed = (await activeHoldsOf(tx, orderId)).filter((h) => h.releaseAt !== null);
  if (timed.length === 0) return { kind: 'finished' };
  const due = timed.filter((h) => h.releaseAt!.getTime() <= now);
  const later = timed.filter((h) => h.releaseAt!.getTime() > now).map((h) => h.releaseAt!.getTime());
  const next = later.length ? Math.min(...later) : undefined;
  if (due.length === 0) return { kind: 'not_due', dueAt: next! };
  for (const hold of due) {
    await releaseHoldIn(tx, hold, {
      at: new Date(now),
      by: { party: 'system', brokerageId: null, userId: null, operator: null },
      why: 'release_at',
      actor: { reason: 'release_at' },
    });
  }
  const dueAt = Math.min(...due.map((h) => h.releaseAt!.getTime()));
  return { kind: 'fired', dueAt, rearm: true, ...(next !== undefined ? { next } : {}) };
}
