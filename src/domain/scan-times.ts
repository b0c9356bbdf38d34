import { InvalidParams } from '@fulfil/contract';
import type { TimeFlag } from '../db/schema/tracking.ts';

/** How far ahead of our clock a scan may be dated (clocks differ; an envelope is not scanned tomorrow). */
export const FUTURE_SLACK_MS = 10 * 60_000;
const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(2101, 0, 1);

/** Why a time cannot be a scan's: outside 2000-2100, more than 10 minutes ahead, before the shipment existed. */
export function scanTimeProblem(time: string, now: Date, shipmentCreatedAt: Date): TimeFlag | null {
  const at = Date.parse(time);
  if (Number.isNaN(at) || at < EARLIEST || at >= LATEST) return 'out_of_range';
  if (at > now.getTime() + FUTURE_SLACK_MS) return 'future';
  if (at < shipmentCreatedAt.getTime()) return 'before_shipment';
  return null;
}

/**
 * A carrier's scan time as stored: its own when usable; else the time it came, flagged, with the
 * time as given beside it (D-152). A carrier's scan is a fact: a bad clock does not refuse it.
 */
export function carrierScanTime(
  time: string,
  now: Date,
  shipmentCreatedAt: Date,
): { occurredAt: string; timeFlag: TimeFlag | null; reportedTime: string | null } {
  const flag = scanTimeProblem(time, now, shipmentCreatedAt);
  if (!flag) return { occurredAt: new Date(time).toISOString(), timeFlag: null, reportedTime: null };
  return { occurredAt: now.toISOString(), timeFlag: flag, reportedTime: time.slice(0, 64) };
}

/** A seller's time: refused (400 naming the field) when it cannot be a scan's. */
export function assertSellerScanTime(time: string, now: Date, shipmentCreatedAt: Date, field = 'occurred_at'): string {
  const flag = scanTimeProblem(time, now, shipmentCreatedAt);
  if (flag === 'out_of_range') throw InvalidParams.at(field, 'must be a date between the years 2000 and 2100');
  if (flag === 'future') throw InvalidParams.at(field, `must not be more than 10 minutes ahead of now (${now.toISOString()})`);
  if (flag === 'before_shipment')
    throw InvalidParams.at(field, `is before the shipment existed (${shipmentCreatedAt.toISOString()}); a scan comes after`);
  return new Date(time).toISOString();
}
