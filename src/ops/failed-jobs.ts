import type { Job, Queue } from 'bullmq';

export interface JobSummary {
  queue: string;
  id: string;
  name: string;
  state: string;
  attempts: number;
  failedReason?: string;
  commandId?: string;
  brokerageId?: number;
  processedBy?: string;
  timestamp: string;
  finishedOn?: string;
}

export async function summarize(queue: Queue, job: Job): Promise<JobSummary> {
  const data = job.data as { commandId?: string; actor?: { brokerageId?: number } };
  return {
    queue: queue.name,
    id: job.id ?? '',
    name: job.name,
    state: await job.getState(),
    attempts: job.attemptsMade,
    ...(job.failedReason ? { failedReason: job.failedReason } : {}),
    ...(data.commandId ? { commandId: data.commandId } : {}),
    ...(data.actor?.brokerageId !== undefined ? { brokerageId: data.actor.brokerageId } : {}),
    ...(job.processedBy ? { processedBy: job.processedBy } : {}),
    timestamp: new Date(job.timestamp).toISOString(),
    ...(job.finishedOn ? { finishedOn: new Date(job.finishedOn).toISOString() } : {}),
  };
}

export async function listJobs(queues: readonly Queue[], state: string, limit: number): Promise<JobSummary[]> {
  const out: JobSummary[] = [];
  for (const q of queues) {
    const jobs = await q.getJobs([state as 'failed'], 0, limit - 1, false);
    for (const j of jobs) out.push(await summarize(q, j));
  }
  return out.slice(0, limit);
}

export async function findJob(queues: readonly Queue[], id: string): Promise<{ queue: Queue; job: Job } | undefined> {
  for (const queue of queues) {
    const job = await queue.getJob(id);
    if (job) return { queue, job };
  }
  return undefined;
}

/**
 * Puts failed jobs back in the queue. Safe however often it is done: a command that did in fact
 * finish answers its stored result (idempotency lives in Postgres, not in the job).
 */
export async function retryFailed(queues: readonly Queue[], ids: readonly string[] | 'all'): Promise<string[]> {
  const retried: string[] = [];
  for (const q of queues) {
    const jobs = ids === 'all' ? await q.getJobs(['failed'], 0, -1) : (await Promise.all(ids.map((id) => q.getJob(id)))).filter(Boolean);
    for (const job of jobs as Job[]) {
      if ((await job.getState()) !== 'failed') continue;
      await job.retry('failed');
      retried.push(job.id!);
    }
  }
  return retried;
}
