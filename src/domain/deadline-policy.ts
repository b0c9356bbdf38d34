/**
 * When an order's tickets must be in the buyer's hands (docs/LIFECYCLE.md, "Deadlines"): at the
 * policy's local time (DEADLINE_LOCAL_TIME, 20:00) in its time zone (DEADLINE_TIME_ZONE,
 * America/New_York) on the order's in-hand date, or on the evening before when the in-hand date is
 * the event's own day (the tickets must arrive before the doors open, not during the show). An
 * explicit deliver_by given with the order overrides it. Worked out with Intl: the zone's offset
 * on that day, daylight saving included.
 */
import { InvalidParams } from '@fulfil/contract';

export interface DeadlinePolicy {
  timeZone: string;
  /** HH:MM, 24-hour. */
  localTime: string;
  /** How long before the deadline the reminder fires. */
  dueSoonBeforeMs: number;
  /** How long a seller has to answer a delivery issue before it is escalated (DELIVERY_ISSUE_RESPONSE_WINDOW; default 48 h). */
  issueResponseWindowMs?: number;
  /**
   * Without a carrier account (no EASYPOST_API_KEY), how long a seller's `delivered` on a shipped
   * envelope waits for the buyer (DELIVERY_CONFIRMATION_WINDOW; default 72 h, D-156); absent with one.
   */
  receiptWindowMs?: number;
  /** The carrier simulator's step between a test shipment's scans on the wall clock (SANDBOX_CARRIER_STEP; default a minute). */
  carrierStepMs?: number;
}

export function deadlinePolicyOf(config: {
  DEADLINE_TIME_ZONE: string;
  DEADLINE_LOCAL_TIME: string;
  DUE_SOON_BEFORE_MS: number;
  DELIVERY_ISSUE_RESPONSE_WINDOW?: number;
  DELIVERY_CONFIRMATION_WINDOW?: number;
  EASYPOST_API_KEY?: string | undefined;
  SANDBOX_CARRIER_STEP?: number;
}): DeadlinePolicy {
  return {
    timeZone: config.DEADLINE_TIME_ZONE,
    localTime: config.DEADLINE_LOCAL_TIME,
    dueSoonBeforeMs: config.DUE_SOON_BEFORE_MS,
    ...(config.DELIVERY_ISSUE_RESPONSE_WINDOW !== undefined ? { issueResponseWindowMs: config.DELIVERY_ISSUE_RESPONSE_WINDOW } : {}),
    ...(config.EASYPOST_API_KEY ? {} : { receiptWindowMs: config.DELIVERY_CONFIRMATION_WINDOW ?? DEFAULT_RECEIPT_WINDOW_MS }),
    ...(config.SANDBOX_CARRIER_STEP !== undefined ? { carrierStepMs: config.SANDBOX_CARRIER_STEP } : {}),
  };
}

/** 72 hours: the buyer's time to confirm or challenge a seller's `delivered` when DELIVERY_CONFIRMATION_WINDOW is not set. */
export const DEFAULT_RECEIPT_WINDOW_MS = 72 * 3600_000;

export const DEFAULT_DEADLINE_POLICY: DeadlinePolicy = {
  timeZone: 'America/New_York',
  localTime: '20:00',
  dueSoonBeforeMs: 24 * 3600_000,
};

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date, YYYY-MM-DD, that exists (no 2026-02-30); throws InvalidParams naming `field`. */
export function parseCalendarDate(value: unknown, field: string): string {
  const m = typeof value === 'string' ? DATE.exec(value) : null;
  const [y, mo, d] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
  const probe = new Date(Date.UTC(y, mo - 1, d));
  if (!m || probe.getUTCFullYear() !== y || probe.getUTCMonth() !== mo - 1 || probe.getUTCDate() !== d) {
    throw new InvalidParams(`${field}: must be a calendar date, YYYY-MM-DD`, field);
  }
  return value as string;
}

/** The date (YYYY-MM-DD) an instant falls on in a time zone. */
export function localDateOf(instant: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(instant);
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** Milliseconds the zone's wall clock is ahead of UTC at an instant. */
function offsetMs(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(instant));
  const n = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const wall = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return wall - Math.floor(instant / 1000) * 1000;
}

/** The instant a wall-clock time on a date has in a time zone (the later one in a repeated hour). */
export function zonedInstant(date: string, localTime: string, timeZone: string): Date {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const [h, mi] = localTime.split(':').map(Number) as [number, number];
  const wall = Date.UTC(y, mo - 1, d, h, mi);
  // Twice: the first guess's offset may be the other side of a daylight-saving change.
  let instant = wall - offsetMs(wall, timeZone);
  instant = wall - offsetMs(instant, timeZone);
  return new Date(instant);
}

function dayBefore(date: string): string {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, mo - 1, d - 1)).toISOString().slice(0, 10);
}

/**
 * Checks an in-hand date against the event (it may not lie after the event's day, in the
 * policy's zone) and answers the deadline the policy gives it.
 */
export function deliverByFor(inHandOn: string, eventStartsAt: Date | null, policy: DeadlinePolicy): Date {
  const eventDay = eventStartsAt ? localDateOf(eventStartsAt, policy.timeZone) : null;
  if (eventDay !== null && inHandOn > eventDay) {
    throw new InvalidParams(`in_hand_on: ${inHandOn} lies after the event's day (${eventDay})`, 'in_hand_on');
  }
  const day = inHandOn === eventDay ? dayBefore(inHandOn) : inHandOn;
  return zonedInstant(day, policy.localTime, policy.timeZone);
}

/**
 * A seller moves an in-hand date to today or later: an earlier one would set a deadline already
 * passed (and its reminder with it). "Today" is the policy's, in its zone (D-172).
 */
export function assertNotBeforeToday(inHandOn: string, now: Date, policy: DeadlinePolicy): void {
  const today = localDateOf(now, policy.timeZone);
  if (inHandOn < today) {
    throw new InvalidParams(`in_hand_on: ${inHandOn} lies before today (${today} in ${policy.timeZone})`, 'in_hand_on');
  }
}

/** When the reminder of a deadline is due. */
export function dueSoonAt(deliverBy: Date, policy: DeadlinePolicy): Date {
  return new Date(deliverBy.getTime() - policy.dueSoonBeforeMs);
}
