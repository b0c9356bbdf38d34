import type { SqlRunner } from '../db/client.ts';
import type { TimerQueue } from './deadline-timers.ts';
import { openEscalations } from './escalation-timer.ts';
import { openReceiptWindows } from './receipt-timer.ts';
import { openTimers } from './timer-rows.ts';

/**
 * Arms again every deadline timer Postgres has still to fire and Redis has no job for, or a job
 * due at another time: after a FLUSHALL, a lost or failed job, a restore of either store, or a
 * crash between a command's commit and its arming. Orders loaded by `fulfil seed` are first armed
 * here (each worker process runs one sweep as it starts: src/service/worker-role.ts). A page of
 * open orders at a time (orders_open_deliver_by_idx), one Redis round trip per page.
 */
export async function sweepTimers(database: SqlRunner, queue: TimerQueue): Promise<{ checked: number; armed: number }> {
  let checked = 0;
  let armed = 0;
  for await (const page of openTimers(database)) {
    checked += page.length;
    armed += await queue.armMissing(page);
  }
  // Open delivery issues' escalation timers, the same way.
  for await (const page of openEscalations(database)) {
    checked += page.length;
    armed += await queue.armMissing(page);
  }
  // Open confirmation windows (D-156), the same way.
  for await (const page of openReceiptWindows(database)) {
    checked += page.length;
    armed += await queue.armMissing(page);
  }
  return { checked, armed };
}
