import { sweepTimers } from '../../src/timers/sweep-timers.ts';
import type { HousekeepingTask } from './task.ts';

/** Deadline timers Postgres has and Redis lost are armed again (src/timers/sweep-timers.ts). */
export const sweepTimersTask: HousekeepingTask = {
  everyMs: (config) => config.TIMER_SWEEP_EVERY_MS,
  run: async ({ database, timerQueue, log }) => {
    const result = await sweepTimers(database, timerQueue);
    if (result.armed > 0) log.info(result, 'deadline timers armed again by the sweep');
    return result;
  },
};
