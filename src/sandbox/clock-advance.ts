import type { Database, SqlTx } from '../db/client.ts';
import type { TimerJob } from '../timers/deadline-timers.ts';
import type { FireOutcome } from '../timers/fire-timer.ts';
import { TIMER_SOURCES, timerSourceOf } from '../timers/timer-sources.ts';
import { appendClockEvent, type ClockDelivery } from './clock-events.ts';
import { CLOCK_COLUMNS, toClockRow } from './clock-row.ts';

/** Timers fired in one transaction of an advance: its commit (and its events' relay) per page. */
const PAGE = 200;

export interface AdvanceRun {
  /** Timers whose run fired them. */
  fired: number;
  /** Deliveries of the clock's `ready` event, to hand to the webhook queue. */
  deliveries: ClockDelivery[];
  /** False when the clock was not advancing (done by another run, or deleted). */
  advanced: boolean;
}

const key = (t: TimerJob) => `${t.orderId}-${t.kind}`;

/** The next timers of the clock due by `upTo`, from every source, earliest first (ties: order, then kind). */
async function nextDue(tx: SqlTx, clockId: number, upTo: Date, skip: ReadonlySet<string>): Promise<TimerJob[]> {
  const lists = await Promise.all(TIMER_SOURCES.map((s) => s.dueOnClock(tx, clockId, upTo, PAGE + skip.size)));
  return lists
    .flat()
    .filter((t) => !skip.has(key(t)))
    .sort((a, b) => a.dueAt - b.dueAt || a.orderId - b.orderId || a.kind.localeCompare(b.kind))
    .slice(0, PAGE);
}

/**
 * Runs a test clock's advance to its target (D-180). Postgres holds the truth: the clock's time,
 * its target, and every timer's due time and whether it fired. Each page is one transaction under
 * the clock's row lock: it reads the timers of the clock's orders due by the target, fires them in
 * time order through their real runs (timer-sources.ts), each with the transaction's clock set to
 * the time it fell due (so its events are stamped then), and moves the clock's time to the last
 * of them. So a run cut short (a SIGKILL, a lost Redis) is taken up by the next run from where the
 * last committed page left it, two runs at once queue on the lock, and no timer fires twice: each
 * fire decides again under its order's lock. At the end the clock is at its target and `ready`.
 *
 * A deadline that finds its mailed shipment on time in transit stays unfired (as on the wall
 * clock, where the sweep asks again later): it is asked again after any other timer of its order
 * fires in this run (a scan may have changed the answer), and once more at the end.
 */
export async function runAdvance(database: Database, clockId: number): Promise<AdvanceRun> {
  let fired = 0;
  // Timers that answered "not now" in this run, by order: asked again once their order moves.
  const waiting = new Map<number, Set<string>>();
  const skip = () => new Set([...waiting.values()].flatMap((s) => [...s]));
  for (;;) {
    const step = await database.transaction(async (tx) => {
      const [row] = await tx.rows<Record<string, unknown>>(`select ${CLOCK_COLUMNS} from test_clocks where id = $1::bigint for update`, [
        clockId,
      ]);
      if (!row) return { done: true as const, advanced: false, deliveries: [] };
      const clock = toClockRow(row);
      if (clock.status !== 'advancing' || !clock.advanceTo) return { done: true as const, advanced: false, deliveries: [] };
      const due = await nextDue(tx, clockId, clock.advanceTo, skip());
      if (due.length === 0) {
        const [readyRow] = await tx.rows<Record<string, unknown>>(
          `update test_clocks set frozen_time = advance_to, status = 'ready', advance_to = null where id = $1::bigint returning ${CLOCK_COLUMNS}`,
          [clockId],
        );
        const deliveries = await appendClockEvent(tx, toClockRow(readyRow!), 'test_clock.ready');
        return { done: true as const, advanced: true, deliveries };
      }
      let at = clock.frozenTime.getTime();
      let setAt: number | undefined;
      for (const timer of due) {
        // A timer armed while the clock was already past its time (a command during the advance) fires at the clock's time.
        at = Math.max(at, timer.dueAt);
        const run = timerSourceOf(timer.kind);
        let outcome: FireOutcome;
        if (at === setAt) {
          outcome = await run.fireIn(tx, timer, at);
        } else {
          // The clock is at the timer's time while it fires: the transaction's clock, and the clock's row,
          // which the order lock of the timer's run reads (lock-order.ts) to set the transaction's clock again.
          // Sent with the run's first statement, not awaited alone: Postgres runs them in order on the
          // transaction's connection, so the run sees the clock moved, one round trip fewer a timer
          // (bench/clocks.ts). A failure of either fails both and the page; the first error is thrown.
          const moved = tx.rows(
            `with c as (update test_clocks set frozen_time = $2::text::timestamptz where id = $1::bigint) select set_config('fulfil.clock', $2::text, true)`,
            [clockId, new Date(at).toISOString()],
          );
          [, outcome] = await Promise.all([moved, run.fireIn(tx, timer, at)]);
          setAt = at;
        }
        if (outcome.kind === 'fired') {
          fired++;
          waiting.delete(timer.orderId);
        } else if (outcome.kind === 'on_time_in_transit' || outcome.kind === 'not_due' || outcome.kind === 'held') {
          const set = waiting.get(timer.orderId) ?? new Set<string>();
          waiting.set(timer.orderId, set.add(key(timer)));
        }
      }
      await tx.rows(`update test_clocks set frozen_time = greatest(frozen_time, $2::timestamptz) where id = $1::bigint`, [
        clockId,
        new Date(at).toISOString(),
      ]);
      return { done: false as const };
    });
    if (step.done) return { fired, deliveries: step.deliveries, advanced: step.advanced };
  }
}

/**
 * At a worker's start, the advances left running (their worker killed) go on here at once, not
 * after BullMQ finds their job stalled; a second run beside the job's own queues on the clock's lock.
 */
export async function resumeAdvances(
  database: Database,
  on: { done(run: AdvanceRun): void; error(err: unknown, clockId: number): void },
): Promise<number> {
  const rows = await database.rows<{ id: string }>(`select id from test_clocks where status = 'advancing' order by id`, []);
  await Promise.all(rows.map((r) => runAdvance(database, Number(r.id)).then(on.done, (err: unknown) => on.error(err, Number(r.id)))));
  return rows.length;
}
