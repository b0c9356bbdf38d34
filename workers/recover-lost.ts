import { and, asc, inArray, isNull, lt } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Database } from '../src/db/client.ts';
import { commands } from '../src/db/schema.ts';
import type { CommandQueues } from '@fulfil/client/transport';
import { isJobName, type Actor, type JobMap, type JobName } from '@fulfil/contract';
import { markExhausted } from './mark-exhausted.ts';

/**
 * Finds commands that Postgres says are unfinished but whose job Redis no longer has in its
 * shard's queue under any shard count in service (a Redis restart without its data, a flush, a
 * failover) and puts them back in the queue of its shard under the current count, from the row:
 * a command, once taken, is not lost even if nobody replays it. Re-enqueueing is safe at any
 * time — a command that did finish answers its stored result. A command whose job used up its
 * attempts is marked failed here if the worker could not do it then; one whose payload was kept
 * only as a summary (inventory batches) cannot be rebuilt and is marked failed, so its sender
 * (the import CLI, a client awaiting it) stops waiting and can send it again.
 */
export async function recoverLostCommands(opts: {
  database: Database;
  queues: CommandQueues;
  /** The shard counts whose queues the workers consume (shard-layouts.ts); a job may sit in any of them. */
  shardCounts?: () => readonly number[];
  olderThanMs: number;
  limit?: number;
}): Promise<{ requeued: string[]; failed: string[] }> {
  const counts = opts.shardCounts?.() ?? [opts.queues.shards];
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
    let job = await findJob(opts.queues, row.name, row.payload as JobMap[typeof row.name], row.id, counts);
    const state = job && (await job.getState());
    if (job && !isJobOf(job, row.requestHash)) {
      // Another request's job under this id: a synchronous call and a recorded one sent at once
      // with one Idempotency-Key, the synchronous one's job first. It ran (or will) as a
      // conflict, storing nothing; once it is finished it goes, and the row's own job is queued.
      if (state !== 'completed' && state !== 'failed') continue;
      await job.remove();
      job = undefined;
    } else if (job && state !== 'failed') continue; // still on its way
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

/** Whether a job under a command's id carries that command's request (not another sent under the same key). */
function isJobOf(job: { data: unknown }, requestHash: string): boolean {
  return (job.data as { requestHash?: unknown } | undefined)?.requestHash === requestHash;
}

/** The command's job in the queue of its shard under any of the counts in service, the current one first. */
async function findJob<N extends JobName>(queues: CommandQueues, name: N, payload: JobMap[N], id: string, counts: readonly number[]) {
  const seen = new Set<string>();
  for (const count of counts) {
    const queue = queues.queueFor(name, payload, count);
    if (seen.has(queue.qualifiedName)) continue;
    seen.add(queue.qualifiedName);
    const job = await queue.getJob(id);
    if (job) return job;
  }
  return undefined;
}

export function logRecovery(log: Logger, result: { requeued: string[]; failed: string[] }): void {
  if (result.requeued.length) log.warn({ commands: result.requeued }, 'jobs missing from Redis were queued again from Postgres');
  if (result.failed.length) log.warn({ commands: result.failed }, 'commands that cannot run any more were marked failed');
}
