import type { Job, Queue } from 'bullmq';
import { answerOutcome, type CommandOutcome } from '../commands/command-outcome.ts';

export interface JobSummary {
  queue: string;
  id: string;
  name: string;
  state: string;
  attempts: number;
  failedReason?: string;
  /** The command's outcome once its job finished (docs/API.md): a completed job may hold a refusal. */
  outcome?: CommandOutcome;
  /** The HTTP status of the command's answer, when it has one. */
  answer?: number;
  commandId?: string;
  brokerageId?: number;
  processedBy?: string;
  timestamp: string;
  finishedOn?: string;
}

export async function summarize(queue: Queue, job: Job): Promise<JobSummary> {
  const data = job.data as { commandId?: string; actor?: { brokerageId?: number } };
  const state = await job.getState();
  const answer = (job.returnvalue as { status?: unknown } | null | undefined)?.status;
  const outcome: CommandOutcome | undefined =
    state === 'failed' ? 'failed' : state === 'completed' && typeof answer === 'number' ? answerOutcome(answer) : undefined;
  return {
    queue: queue.name,
    id: job.id ?? '',
    name: job.name,
    state,
    attempts: job.attemptsMade,
    ...(job.failedReason ? { failedReason: job.failedReason } : {}),
    ...(outcome ? { outcome } : {}),
    ...(state === 'completed' && typeof answer === 'number' ? { answer } : {}),
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
