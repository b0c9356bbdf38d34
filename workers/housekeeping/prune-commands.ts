import { pruneCommands } from '../command-retention.ts';
import type { HousekeepingTask } from './task.ts';

/** Finished commands older than COMMAND_RETENTION_HOURS are deleted (command-retention.ts). */
export const pruneCommandsTask: HousekeepingTask = {
  // Often enough that a table never holds much more than the retention; each run is small.
  everyMs: () => 15 * 60_000,
  async run({ database, config, log }) {
    const pruned = await pruneCommands(database, config.COMMAND_RETENTION_HOURS);
    if (pruned > 0) log.info({ pruned, retentionHours: config.COMMAND_RETENTION_HOURS }, 'pruned finished commands');
    return { pruned };
  },
};
