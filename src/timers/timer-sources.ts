import type { SqlRunner, SqlTx } from '../db/client.ts';
import { carrierScansOnClock, carrierScanTimerOf, fireCarrierScanIn, openCarrierScans } from '../sandbox/carrier-simulator.ts';
import {
  CARRIER_SCAN_KIND,
  ESCALATION_KIND,
  HOLD_RELEASE_KIND,
  RECEIPT_KIND,
  TIMER_KINDS,
  type AnyTimerKind,
  type TimerJob,
  type TimerKind,
} from './deadline-timers.ts';
import { escalationsOnClock, escalationTimerOf, fireEscalationIn, openEscalations } from './escalation-timer.ts';
import { fireTimersIn, type FireOutcome } from './fire-timer.ts';
import { fireHoldReleaseIn, holdReleasesOnClock, holdReleaseTimerOf, openHoldReleases } from './hold-release-timer.ts';
import { fireReceiptWindowIn, openReceiptWindows, receiptTimerOf, receiptWindowsOnClock } from './receipt-timer.ts';
import { deadlineTimersOnClock, openTimers, timersOfOrder } from './timer-rows.ts';

/**
 * Every durable timer of an order, by what holds its time in Postgres. Each source says the same
 * four things, so the places that arm, sweep, fire and advance timers read one list: a kind added
 * here is armed after its commands, swept after a lost Redis, fired by the timer worker, and
 * fired in time order by a test clock's advance (src/sandbox/clock-advance.ts).
 */
export interface TimerSource {
  readonly kinds: readonly AnyTimerKind[];
  /** The order's timers to arm in Redis as Postgres has them; none for an order on a test clock. */
  timersOf(db: SqlRunner, orderId: number): Promise<TimerJob[]>;
  /** Every wall-clock timer still to fire, a page at a time (the sweep). */
  open(db: SqlRunner): AsyncGenerator<TimerJob[]>;
  /** The timers of a test clock's orders due by `upTo`, earliest first (the clock's advance). */
  dueOnClock(db: SqlRunner, clockId: number, upTo: Date, limit: number): Promise<TimerJob[]>;
  /** One timer's run in the caller's transaction, deciding under the order's lock as of `now` (ms). */
  fireIn(tx: SqlTx, job: TimerJob, now: number): Promise<FireOutcome>;
}

const deadlines: TimerSource = {
  kinds: TIMER_KINDS,
  timersOf: timersOfOrder,
  open: (db) => openTimers(db),
  dueOnClock: deadlineTimersOnClock,
  fireIn: async (tx, job, now) => (await fireTimersIn(tx, job.kind as TimerKind, [job.orderId], now))[0]!,
};

const escalations: TimerSource = {
  kinds: [ESCALATION_KIND],
  timersOf: async (db, orderId) => {
    const t = await escalationTimerOf(db, orderId);
    return t ? [t] : [];
  },
  open: (db) => openEscalations(db),
  dueOnClock: escalationsOnClock,
  fireIn: (tx, job, now) => fireEscalationIn(tx, job.orderId, now),
};

const receiptWindows: TimerSource = {
  kinds: [RECEIPT_KIND],
  timersOf: async (db, orderId) => {
    const t = await receiptTimerOf(db, orderId);
    return t ? [t] : [];
  },
  open: (db) => openReceiptWindows(db),
  dueOnClock: receiptWindowsOnClock,
  fireIn: (tx, job, now) => fireReceiptWindowIn(tx, job.orderId, now),
};

// Test mode's carrier simulator (D-195): an order's next planned scan, one job per order.
const carrierScans: TimerSource = {
  kinds: [CARRIER_SCAN_KIND],
  timersOf: async (db, orderId) => {
    const t = await carrierScanTimerOf(db, orderId);
    return t ? [t] : [];
  },
  open: (db) => openCarrierScans(db),
  dueOnClock: carrierScansOnClock,
  fireIn: (tx, job, now) => fireCarrierScanIn(tx, job, now),
};

// Holds that release themselves (D-215): an order's earliest release_at, one job per order.
const holdReleases: TimerSource = {
  kinds: [HOLD_RELEASE_KIND],
  timersOf: async (db, orderId) => {
    const t = await holdReleaseTimerOf(db, orderId);
    return t ? [t] : [];
  },
  open: (db) => openHoldReleases(db),
  dueOnClock: holdReleasesOnClock,
  fireIn: (tx, job, now) => fireHoldReleaseIn(tx, job.orderId, now),
};

export const TIMER_SOURCES: readonly TimerSource[] = [deadlines, escalations, receiptWindows, carrierScans, holdReleases];

/** Every kind the timer queue holds: a job per order and kind. */
export const ALL_TIMER_KINDS: readonly AnyTimerKind[] = TIMER_SOURCES.flatMap((s) => s.kinds);

export function timerSourceOf(kind: AnyTimerKind): TimerSource {
  const source = TIMER_SOURCES.find((s) => s.kinds.includes(kind));
  if (!source) throw new Error(`no timer source holds kind ${kind}`);
  return source;
}

/** Every timer of the order to arm now, from every source. */
export async function timersToArm(db: SqlRunner, orderId: number): Promise<TimerJob[]> {
  return (await Promise.all(TIMER_SOURCES.map((s) => s.timersOf(db, orderId)))).flat();
}
