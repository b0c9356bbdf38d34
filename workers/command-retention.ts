import { and, inArray, lt } from 'drizzle-orm';
import type { Database } from '../src/db/client.ts';
import { commands } from '../src/db/schema.ts';

/**
 * Deletes commands that finished longer ago than the retention (docs/API.md §Commands promises replays for at least
 * 24 hours; the default keeps a week). Unfinished commands are never deleted: they are what a
 * replay re-enqueues. Small batches keep each delete short next to live traffic. A command finishes
 * after it was sent, so the search runs on the index of when commands were sent (created_at).
 */
export async function pruneCommands(database: Database, retentionHours: number, batch = 5_000): Promise<number> {
  const cutoff = new Date(Date.now() - retentionHours * 3600_000);
  let total = 0;
  for (;;) {
    const old = database.db
      .select({ id: commands.id })
      .from(commands)
      .where(and(lt(commands.createdAt, cutoff), lt(commands.finishedAt, cutoff), inArray(commands.status, ['succeeded', 'failed'])))
      .limit(batch);
    const deleted = await database.db.delete(commands).where(inArray(commands.id, old)).returning({ id: commands.id });
    total += deleted.length;
    if (deleted.length < batch) return total;
  }
}
