import type { Config } from '../../src/config.ts';
import { pruneCommandsTask } from './prune-commands.ts';
import { pruneFilesTask } from './prune-files.ts';
import { recoverLostCommandsTask } from './recover-lost-commands.ts';
import { sweepTimersTask } from './sweep-timers.ts';
import { sweepWebhooksTask } from './sweep-webhooks.ts';
import type { HousekeepingContext, HousekeepingTask } from './task.ts';

/**
 * Every housekeeping task by its name, which is both its BullMQ job scheduler's id and the name
 * of the jobs it makes. A new task is a file beside these and one line here.
 */
export const HOUSEKEEPING_TASKS = {
  'recover-lost-commands': recoverLostCommandsTask,
  'prune-commands': pruneCommandsTask,
  'prune-files': pruneFilesTask,
  'sweep-webhooks': sweepWebhooksTask,
  'sweep-timers': sweepTimersTask,
} as const satisfies Record<string, HousekeepingTask>;

export type HousekeepingName = keyof typeof HOUSEKEEPING_TASKS;
export type HousekeepingTasks = Readonly<Record<string, HousekeepingTask>>;

/** The job schedulers housekeeping keeps in Redis: one per task. */
export function housekeepingSchedules(config: Config, tasks: HousekeepingTasks = HOUSEKEEPING_TASKS): { name: string; everyMs: number }[] {
  return Object.entries(tasks).map(([name, task]) => ({ name, everyMs: task.everyMs(config) }));
}

/** Runs the task a housekeeping job names; a name no task has fails the job (logged, not retried). */
export async function runHousekeepingJob(
  name: string,
  ctx: HousekeepingContext,
  tasks: HousekeepingTasks = HOUSEKEEPING_TASKS,
): Promise<Record<string, number>> {
  const task = Object.hasOwn(tasks, name) ? tasks[name] : undefined;
  if (!task) throw new Error(`unknown housekeeping job ${name}`);
  return task.run(ctx);
}
