import { openFileStore } from '../../src/files/open-file-store.ts';
import { pruneFiles } from '../../src/files/prune-files.ts';
import type { HousekeepingTask } from './task.ts';

/**
 * Files no e-ticket set or proof references (an upload whose command was refused or never ran)
 * after FILE_GRACE_HOURS, and replaced e-ticket sets after FILE_RETENTION_DAYS (src/files/prune-files.ts).
 */
export const pruneFilesTask: HousekeepingTask = {
  everyMs: () => 15 * 60_000,
  async run({ database, config, log }) {
    const store = await openFileStore(config, database);
    const pruned = await pruneFiles(database, store, { graceHours: config.FILE_GRACE_HOURS, retentionDays: config.FILE_RETENTION_DAYS });
    if (pruned.sets > 0 || pruned.files > 0) log.info({ ...pruned, store: store.kind }, 'pruned files');
    return { replacedSets: pruned.sets, files: pruned.files };
  },
};
