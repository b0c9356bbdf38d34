import { DelayedError, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { RedisConnection } from '@fulfil/client/transport';
import { timersPlace } from '@fulfil/contract';
import type { Database } from '../db/client.ts';
import { closeWorker, countRunning } from '../queues/close-worker.ts';
import { observeTimerLateness } from '../telemetry/metrics-registry.ts';
import { runAdvance } from '../sandbox/clock-advance.ts';
import type { ClockDelivery } from '../sandbox/clock-events.ts';
import { ADVANCE_CLOCK_JOB, isDeadlineKind, TimerQueue, type AdvanceClockJob, type TimerJob } from './deadline-timers.ts';
import { FireBatcher } from './fire-batch.ts';
import { ALL_TIMER_KINDS, timerSourceOf, timersToArm } from './timer-sources.ts';

/**
 * Runs the deadline timers that come due (fire-timer.ts); jobs running together share a
 * transaction (fire-batch.ts: one COMMIT's flush for the batch, not one per timer). A run that
 * finds its timer not yet due (the deadline moved later while the job waited or ran) puts itself
 * back as a delayed job at the time Postgres says.
 */
export function startTimerWorker(opts: {
  database: Database;
  prefix: string;
  connection: () => RedisConnection;
  concurrency: number;
  log: Logger;
  /** A run changed the order's other timers (a hold released): arm them as Postgres now has them. */
  onTimers?: (orderId: number) => void;
  /** A timer's event committed (it waits in the outbox): wakes the relay. */
  onFired?: () => void;
  /** A test clock's own event committed (test_clock.ready): its webhook deliveries to send now. */
  onClockEvents?: (deliveries: ClockDelivery[]) => void;
}): { close(): Promise<void> } {
  const place = timersPlace(opts.prefix);
  const batcher = new FireBatcher(opts.database);
  const run = async (job: Job<TimerJob>, token?: string) => {
    if (job.name === ADVANCE_CLOCK_JOB) {
      const { clockId } = job.data as unknown as AdvanceClockJob;
      const result = await runAdvance(opts.database, clockId);
      if (result.fired > 0 || result.advanced) opts.onFired?.();
      if (result.deliveries.length > 0) opts.onClockEvents?.(result.deliveries);
      return result.advanced ? 'advanced' : 'not_advancing';
    }
    const { orderId, kind } = job.data;
    // The deadlines' two kinds go in shared batches (fire-batch.ts); every other kind alone.
    const outcome = isDeadlineKind(kind)
      ? await batcher.fire(orderId, kind)
      : await opts.database.transaction((tx) => timerSourceOf(kind).fireIn(tx, job.data, Date.now()));
    if (outcome.kind === 'not_due') {
      await job.updateData({ ...job.data, dueAt: outcome.dueAt });
      await job.moveToDelayed(outcome.dueAt, token);
      throw new DelayedError();
    }
    if (outcome.kind === 'fired') {
      observeTimerLateness(kind, (Date.now() - outcome.dueAt) / 1000);
      opts.onFired?.();
      if (outcome.rearm) opts.onTimers?.(orderId);
      // One job per order and kind: a source with a later time still to fire reuses it.
      if (outcome.next !== undefined) {
        await job.updateData({ ...job.data, dueAt: outcome.next });
        await job.moveToDelayed(outcome.next, token);
        throw new DelayedError();
      }
    }
    return outcome.kind;
  };
  const counted = countRunning(run);
  const connection = opts.connection();
  const worker = new Worker<TimerJob>(place.name, counted.processor, { prefix: place.prefix, connection, concurrency: opts.concurrency });
  worker.on('failed', (job, err) =>
    opts.log.warn({ err, timer: job?.id }, 'deadline timer run failed; it is retried, or armed again by the sweep'),
  );
  worker.on('error', (err) => opts.log.warn({ err }, 'deadline timer worker error'));
  return { close: () => closeWorker(worker, connection, { deadlineMs: 3_000, running: counted.running }).then(() => undefined) };
}

/**
 * Arms the timers of orders written outside a command (a seed, a fixture import) as their rows
 * now stand, in the same step as the write rather than at the next sweep (D-133).
 */
export async function armOrderTimers(database: Database, queue: TimerQueue, orderIds: readonly number[]): Promise<number> {
  let armed = 0;
  for (const id of orderIds) {
    const timers = await timersToArm(database, id);
    await queue.arm(timers);
    armed += timers.length;
  }
  return armed;
}

/**
 * After a command that changed an order's deadline or ended the order committed: its timers as
 * Postgres now has them are armed (moved when their time changed), the others removed. A failure
 * is logged only: the sweep arms what is missing, and a job left for a finished order does nothing.
 */
export async function syncOrderTimers(database: Database, queue: TimerQueue, orderId: number, log: Logger): Promise<void> {
  try {
    await queue.sync(orderId, await timersToArm(database, orderId), ALL_TIMER_KINDS);
  } catch (err) {
    log.warn({ err, orderId }, 'could not arm the order deadline timers; the sweep will');
  }
}
