import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { RECOVER_LOST } from '../../workers/housekeeping.ts';
import { HOUSEKEEPING_TASKS, housekeepingSchedules, runHousekeepingJob } from '../../workers/housekeeping/registry.ts';
import type { HousekeepingContext, HousekeepingTask } from '../../workers/housekeeping/task.ts';

// Housekeeping schedules exactly the tasks of its registry, each job name finds its task, and a
// job of a name no task has fails rather than passing for done.

const config = loadConfig({ NODE_ENV: 'development' });
const names = Object.keys(HOUSEKEEPING_TASKS).sort();

describe('housekeeping registry', () => {
  it('schedules every task of the registry, and only those, each with a period', () => {
    const schedules = housekeepingSchedules(config);
    expect(schedules.map((s) => s.name).sort()).toEqual(names);
    for (const s of schedules) expect(s.everyMs, s.name).toBeGreaterThan(0);
    expect(names).toEqual(['prune-commands', 'prune-files', 'recover-lost-commands', 'sweep-timers', 'sweep-webhooks']);
    expect(names).toContain(RECOVER_LOST);
  });

  it('takes each period from the configuration it is given', () => {
    const changed = loadConfig({
      NODE_ENV: 'development',
      RECOVERY_EVERY_MS: '1234',
      WEBHOOK_SWEEP_EVERY_MS: '4321',
      TIMER_SWEEP_EVERY_MS: '987',
    });
    const every = Object.fromEntries(housekeepingSchedules(changed).map((s) => [s.name, s.everyMs]));
    expect(every).toMatchObject({ 'recover-lost-commands': 1234, 'sweep-webhooks': 4321, 'sweep-timers': 987 });
  });

  it('runs the task a job names, and fails a job whose name no task has', async () => {
    const ran: string[] = [];
    const task = (name: string): HousekeepingTask => ({ everyMs: () => 1_000, run: async () => (ran.push(name), { done: 1 }) });
    const tasks = { first: task('first'), second: task('second') };
    const ctx = {} as HousekeepingContext;
    await expect(runHousekeepingJob('second', ctx, tasks)).resolves.toEqual({ done: 1 });
    expect(ran).toEqual(['second']);
    await expect(runHousekeepingJob('third', ctx, tasks)).rejects.toThrow('unknown housekeeping job third');
    // Not a task, though every object has it.
    await expect(runHousekeepingJob('toString', ctx, tasks)).rejects.toThrow('unknown housekeeping job toString');
    expect(housekeepingSchedules(config, tasks).map((s) => s.name)).toEqual(['first', 'second']);
  });
});
