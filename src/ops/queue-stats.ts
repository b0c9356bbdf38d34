import type { Queue } from 'bullmq';
import { isNull, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { outbox } from '../db/schema.ts';

export const JOB_STATES = ['waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized', 'waiting-children'] as const;

export interface QueueStats {
  queue: string;
  counts: Record<(typeof JOB_STATES)[number], number>;
}

export async function queueStats(queues: readonly Queue[]): Promise<QueueStats[]> {
  return Promise.all(
    queues.map(async (q) => ({ queue: q.name, counts: (await q.getJobCounts(...JOB_STATES)) as QueueStats['counts'] })),
  );
}

/** Events written but not yet on the events queue: a growing number means the relay is stuck. */
export async function outboxBacklog(ex: Executor): Promise<number> {
  const [row] = await ex.select({ n: sql<number>`count(*)::int` }).from(outbox).where(isNull(outbox.relayedAt));
  return row?.n ?? 0;
}
