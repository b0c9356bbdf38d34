import { logRecovery, recoverLostCommands } from '../recover-lost.ts';
import type { HousekeepingTask } from './task.ts';

/** Commands Postgres holds unfinished whose job Redis lost are queued again (recover-lost.ts). */
export const recoverLostCommandsTask: HousekeepingTask = {
  everyMs: (config) => config.RECOVERY_EVERY_MS,
  async run(ctx) {
    const result = await recoverLostCommands({
      database: ctx.database,
      queues: ctx.queues,
      ...(ctx.shardCounts ? { shardCounts: ctx.shardCounts } : {}),
      olderThanMs: ctx.config.RECOVERY_AFTER_MS,
    });
    logRecovery(ctx.log, result);
    return { requeued: result.requeued.length, failed: result.failed.length };
  },
};
