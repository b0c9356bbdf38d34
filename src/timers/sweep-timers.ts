import type { SqlRunner } from '../db/client.ts';
import type { TimerQueue } from './deadline-timers.ts';
import { TIMER_SOURCES } from './timer-sources.ts';

/**
 * Arms again every deadline timer Postgres has still to fire and Redis has no job for, or a job
 * due at another time: after a FLUSHALL, a lost or failed job, a restore of either store, or a
 * crash between a command's commit and its arming. Orders loaded by `fulfil seed` are first armed
 * here (each worker process runs one sweep as it starts: src/service/worker-role.ts). Every source
 * of timer-sources.ts a page at a time, one Redis round trip per page.
 */
export async function sweepTimers(database: SqlRunner, queue: TimerQueue): Promise<{ checked: number; armed: number }> {
  let checked = 0;
  let armed = 0;
  for (const source of TIMER_SOURCES) {
    for await (const page of source.open(database)) {
      checked += page.length;
      armed += await queue.armMissing(page);
    }
  }
  // Test clocks left advancing (their job lost with Redis): their advance is started again.
  for (const { id } of await database.rows<{ id: string }>(`select id from test_clocks where status = 'advancing' order by id`, [])) {
    checked++;
    await queue.armAdvance(Number(id));
  }
  return { checked, armed };
}
