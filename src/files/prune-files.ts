import type { Database } from '../db/database.ts';
import type { FileStore } from './file-store.ts';

/**
 * Housekeeping of files (workers/housekeeping/prune-files.ts). Replaced e-ticket sets older than
 * the retention go (their files' rows and links with them); then files no set references and
 * nobody stored within the grace period go, with their bytes. A referenced file is never
 * deleted: the reference's foreign key forbids it. A command attaching a file refreshes and locks
 * its row first (src/db/sql/file-sets.ts holdStoredFiles), so the delete either waits and then
 * finds it fresh, or deletes it first and the command refuses (upload again).
 */
export async function pruneFiles(
  database: Database,
  store: FileStore,
  opts: { graceHours: number; retentionDays: number; batch?: number },
): Promise<{ sets: number; files: number }> {
  const sets = await database.rows<{ id: number }>(
    `delete from shipment_file_sets where kind = 'etickets' and replaced_at < now() - make_interval(days => $1::int) returning id`,
    [opts.retentionDays],
  );
  let files = 0;
  for (;;) {
    const removed = await database.transaction(async (tx) => {
      const rows = await tx.rows<{ sha256: string }>(
        `delete from stored_files where sha256 in (
           select b.sha256 from stored_files b
           where b.stored_at < now() - make_interval(hours => $1::int)
             and not exists (select 1 from shipment_files f where f.sha256 = b.sha256)
           limit $2::int for update skip locked)
         and stored_at < now() - make_interval(hours => $1::int)
         returning sha256`,
        [opts.graceHours, opts.batch ?? 200],
      );
      await store.removeBytes(
        tx,
        rows.map((r) => r.sha256),
      );
      return rows.length;
    });
    files += removed;
    if (removed < (opts.batch ?? 200)) return { sets: sets.length, files };
  }
}
