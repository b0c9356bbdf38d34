import { and, asc, inArray, isNull, lt } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Database } from '../src/db/client.ts';
import { commands } from '../src/db/schema.ts';
import type { CommandQueues } from '../src/queues/command-queues.ts';
import { isJobName, QUEUE_OF, type Actor } from '../src/queues/job-map.ts';
import { markExhausted } from './mark-exhausted.ts';

/**
 * Finds commands that Postgres says are unfinished but whose job Redis no longer has (a Redis
 * restart without its data, a flush, a failover) and puts them back in the queue from the row:
 * a command, once taken, is not lost even if nobody replays it. Re-enqueueing is safe at any
 * time — a command that did finish answers its stored result. A command whose job used up its
 * attempts is marked failed here if the worker could not do it then; one whose payload was kept
 * only as a summary (inventory batches) cannot be rebuilt and is marked failed, so its sender
 * (the import CLI, a client awaiting it) stops waiting and can send it again.
 */
export async function recoverLostCommands(opts: {
  database: Database;
  queues: CommandQueues;
  olderThanMs: number;
  limit?: number;
}): Promise<{ requeued: string[]; failed: string[] }> {
  const rows = await opts.database.db
    .select()
    .from(commands)
    .where(
      and(
        isNull(commands.resultStatus),
        inArray(commands.status, ['queued', 'running']),
        lt(commands.createdAt, new Date(Date.now() - opts.olderThanMs)),
      ),
    )
    .orderBy(asc(commands.createdAt))
    .limit(opts.limit ?? 200);
  const requeued: string[] = [];
  const failed: string[] = [];
  for (const row of rows) {
    if (!isJobName(row.name)) continue;
    const job = await opts.queues.queue(QUEUE_OF[row.name]).getJob(row.id);
    if (job && (await job.getState()) !== 'failed') continue; // still on its way
    const payload = row.payload as { summarized?: boolean };
    if (job || !row.actor || payload.summarized) {
      await markExhausted(opts.database, row.id);
      failed.push(row.id);
      continue;
    }
    await opts.queues.enqueue(row.name, {
      commandId: row.id,
      actor: row.actor as Actor,
      requestHash: row.requestHash,
      payload: row.payload as never,
    });
    requeued.push(row.id);
  }
  return { requeued, failed };
}

export function logRecovery(log: Logger, result: { requeued: string[]; failed: string[] }): void {
  if (result.requeued.length) log.warn({ commands: result.requeued }, 'jobs missing from Redis were queued again from Postgres');
  if (result.failed.length) log.warn({ commands: result.failed }, 'commands that cannot run any more were marked failed');
}
