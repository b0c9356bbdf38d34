import { Queue } from 'bullmq';
import type { RedisConnection } from '@fulfil/client/transport';
import { DEADLINE_EVENT_KINDS, timersPlace } from '@fulfil/contract';

/**
 * The two timers of an open order's deadline: the reminder (`due_soon`, DUE_SOON_BEFORE_MS before
 * it) and the deadline itself (`overdue`). Postgres holds when each is due and whether it fired
 * (orders.due_soon_at, deliver_by, *_fired_at); Redis holds one delayed BullMQ job per order and
 * kind, which only says "look at this order's timer now". A job lost, late, early or run twice
 * changes nothing Postgres does not agree to (fire-timer.ts); a missing one is armed again by the
 * sweep (sweep-timers.ts).
 */
export const TIMER_KINDS = DEADLINE_EVENT_KINDS;
export type TimerKind = (typeof TIMER_KINDS)[number];
/** The delivery issue's escalation timer shares the queue, the worker and the sweep (escalation-timer.ts). */
export const ESCALATION_KIND = 'escalate';
/** The buyer's confirmation window of a seller's `delivered` (src/timers/receipt-timer.ts, D-156). */
export const RECEIPT_KIND = 'confirm_receipt';
/** The next scan the carrier simulator planned for a test shipment (src/sandbox/carrier-simulator.ts, D-195). */
export const CARRIER_SCAN_KIND = 'carrier_scan';

/** The earliest `release_at` of an order's active holds (src/timers/hold-release-timer.ts, D-215). */
export const HOLD_RELEASE_KIND = 'hold_release';

export type AnyTimerKind = TimerKind | typeof ESCALATION_KIND | typeof RECEIPT_KIND | typeof CARRIER_SCAN_KIND | typeof HOLD_RELEASE_KIND;

export function isDeadlineKind(kind: AnyTimerKind): kind is TimerKind {
  return (TIMER_KINDS as readonly string[]).includes(kind);
}

export interface TimerJob {
  orderId: number;
  kind: AnyTimerKind;
  /** When Postgres said it is due (ms since the epoch) when the job was armed: how the sweep tells a stale job. */
  dueAt: number;
}

/** The job that runs a test clock's advance (src/sandbox/clock-advance.ts) on the timers' queue and worker. */
export const ADVANCE_CLOCK_JOB = 'advance_clock';
export interface AdvanceClockJob {
  clockId: number;
}

/** One id per order and kind (BullMQ ids may not hold ':'): arming twice is one job. */
export function timerJobId(orderId: number, kind: AnyTimerKind): string {
  return `deadline-${orderId}-${kind}`;
}

/** The system actor's reason each timer's event carries. */
export const TIMER_REASONS: Record<TimerKind, string> = { due_soon: 'deadline_reminder', overdue: 'deadline_passed' };

export class TimerQueue {
  readonly queue: Queue<TimerJob>;

  constructor(opts: { prefix: string; connection: RedisConnection }) {
    const place = timersPlace(opts.prefix);
    this.queue = new Queue<TimerJob>(place.name, {
      prefix: place.prefix,
      connection: opts.connection,
      // Retries are for Postgres or Redis trouble while firing; a job that gives up is armed again
      // by the sweep, and done jobs go at once so their ids can be armed again.
      defaultJobOptions: { attempts: 8, backoff: { type: 'exponential', delay: 1_000 }, removeOnComplete: true, removeOnFail: true },
    });
    // Connection trouble is logged once by the connection's owner; what an arm loses, the sweep arms.
    this.queue.on('error', () => {});
  }

  /** The Redis key of a timer's job hash. */
  jobKey(orderId: number, kind: AnyTimerKind): string {
    return this.queue.toKey(timerJobId(orderId, kind));
  }

  /** Arms the timers (a job per timer, due at its time); an armed one due at another time is moved. */
  async arm(timers: readonly TimerJob[]): Promise<void> {
    for (const t of timers) {
      const id = timerJobId(t.orderId, t.kind);
      const job = await this.queue.getJob(id);
      if (job && job.data.dueAt === t.dueAt) continue;
      // Removal fails for a job running now: that run reads Postgres and delays itself to the new time.
      if (job) await job.remove().catch(() => undefined);
      await this.queue.add(t.kind, t, { jobId: id, delay: Math.max(0, t.dueAt - Date.now()) });
    }
  }

  /**
   * Makes Redis hold exactly `wanted` of the order's timers (of `kinds`: every kind, timer-sources.ts):
   * one round trip reads the jobs' data, and only a missing, stale or unwanted job is written. A
   * command that re-arms an order whose timers stand as they were (an accept after the seed
   * armed them) costs that one read, not a BullMQ script per kind.
   */
  async sync(orderId: number, wanted: readonly TimerJob[], kinds: readonly AnyTimerKind[]): Promise<void> {
    const client = await this.queue.getBackend().client;
    const pipeline = client.pipeline();
    for (const kind of kinds) pipeline.runCommand('hget', [this.jobKey(orderId, kind), 'data']);
    const answers = (await pipeline.exec()) ?? [];
    const held = new Map<AnyTimerKind, number>();
    kinds.forEach((kind, i) => {
      const data = answers[i]?.[1];
      if (typeof data === 'string') held.set(kind, (JSON.parse(data) as TimerJob).dueAt);
    });
    const toArm = wanted.filter((t) => held.get(t.kind) !== t.dueAt);
    const unwanted = kinds.filter((k) => held.has(k) && !wanted.some((t) => t.kind === k));
    if (unwanted.length) await this.remove(orderId, unwanted);
    if (toArm.length) await this.arm(toArm);
  }

  /** Arms the timers Redis has no job for, in one round trip per call (the sweep's batches). */
  async armMissing(timers: readonly TimerJob[]): Promise<number> {
    if (timers.length === 0) return 0;
    const client = await this.queue.getBackend().client;
    const pipeline = client.pipeline();
    for (const t of timers) pipeline.runCommand('hget', [this.jobKey(t.orderId, t.kind), 'data']);
    const answers = (await pipeline.exec()) ?? [];
    const stale: TimerJob[] = [];
    const missing: TimerJob[] = [];
    timers.forEach((t, i) => {
      const data = answers[i]?.[1];
      if (typeof data !== 'string') return missing.push(t);
      if ((JSON.parse(data) as TimerJob).dueAt !== t.dueAt) stale.push(t);
    });
    await this.queue.addBulk(
      missing.map((t) => ({
        name: t.kind,
        data: t,
        opts: { jobId: timerJobId(t.orderId, t.kind), delay: Math.max(0, t.dueAt - Date.now()) },
      })),
    );
    if (stale.length) await this.arm(stale);
    return missing.length + stale.length;
  }

  /**
   * Starts (or, after a lost Redis, starts again) a test clock's advance: one job per clock, so an
   * advance armed twice runs once; the run reads its target from Postgres, so a stale job does no harm.
   */
  async armAdvance(clockId: number): Promise<void> {
    const data: AdvanceClockJob = { clockId };
    await this.queue.add(ADVANCE_CLOCK_JOB, data as unknown as TimerJob, { jobId: `clock-${clockId}-advance` });
  }

  /** Removes an order's timers (it finished); one running now finds the order finished and does nothing. */
  async remove(orderId: number, kinds: readonly AnyTimerKind[] = TIMER_KINDS): Promise<void> {
    for (const kind of kinds) await this.queue.remove(timerJobId(orderId, kind)).catch(() => undefined);
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
