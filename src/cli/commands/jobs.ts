import { Queue } from 'bullmq';
import { loadConfig } from '../../config.ts';
import { findJob, listJobs, retryFailed, summarize, type JobSummary } from '../../ops/failed-jobs.ts';
import { JOB_STATES } from '../../ops/queue-stats.ts';
import { COMMAND_QUEUES, WEBHOOKS_QUEUE, serviceQueuePlaces } from '@fulfil/contract';
import { blockingConnection } from '@fulfil/client/transport';
import { serviceQueues } from '../service-queues.ts';
import { redactedUrl } from '../../redact-url.ts';
import { intArg, UsageError, type CommandModule } from '../command.ts';
import { isoTime } from '../../iso-time.ts';

const ALL_QUEUES = [...COMMAND_QUEUES, WEBHOOKS_QUEUE];

/** Where the jobs were read: the Redis address (any password hidden) and the BullMQ prefix. */
export interface QueueSource {
  redis: string;
  source: string;
  prefix: string;
}

async function withQueues<T>(only: string | undefined, base: unknown, fn: (queues: Queue[], from: QueueSource) => Promise<T>): Promise<T> {
  if (only !== undefined && !ALL_QUEUES.includes(only as never)) throw new UsageError(`--queue: one of ${ALL_QUEUES.join(', ')}`);
  const config = loadConfig();
  // The running service's Redis, found as every command finds it (D-160); never a new private one.
  const redis = await serviceQueues(config, base as string | undefined);
  const connection = blockingConnection(redis.url);
  // Every shard of the command queue is a queue named `commands` under a prefix of its own.
  const queues = serviceQueuePlaces(redis.prefix, redis.shards)
    .filter(({ name }) => only === undefined || name === only)
    .map(({ name, prefix }) => new Queue(name, { prefix, connection }));
  try {
    return await fn(queues, { redis: redactedUrl(redis.url), source: redis.source, prefix: redis.prefix });
  } finally {
    await Promise.all(queues.map((q) => q.close()));
    connection.disconnect();
  }
}

export const jobsList: CommandModule = {
  options: {
    state: { type: 'string', default: 'failed' },
    queue: { type: 'string' },
    limit: { type: 'string', default: '50' },
    json: { type: 'boolean' },
    base: { type: 'string' },
  },
  async run({ values }, io) {
    const state = String(values.state);
    if (!JOB_STATES.includes(state as never)) throw new UsageError(`--state: one of ${JOB_STATES.join(', ')}`);
    const limit = intArg(values.limit as string, '--limit');
    return withQueues(values.queue as string | undefined, values.base, async (queues, from) => {
      const jobs = await listJobs(queues, state, limit);
      if (values.json) jobs.forEach((j) => io.out(JSON.stringify(j)));
      else {
        io.out(`${state} jobs in ${describe(queues, from)}`);
        io.out(`${'QUEUE'.padEnd(15)}${'JOB'.padEnd(40)}${'NAME'.padEnd(20)}${'QUEUED'.padEnd(21)}${'FINISHED'.padEnd(21)}TRIES  OUTCOME`);
        for (const j of jobs) {
          io.out(
            `${j.queue.padEnd(15)}${j.id.padEnd(40)}${j.name.padEnd(20)}${shortTime(j.timestamp).padEnd(21)}${shortTime(j.finishedOn).padEnd(21)}` +
              `${String(j.attempts).padEnd(7)}${outcomeText(j)}`,
          );
        }
        io.out(`${jobs.length} ${state} job(s)`);
      }
      return 0;
    });
  },
};

export const jobsShow: CommandModule = {
  options: { base: { type: 'string' } },
  async run({ positionals, values }, io) {
    if (positionals.length !== 1) throw new UsageError('expected exactly one job id');
    return withQueues(undefined, values.base, async (queues) => {
      const found = await findJob(queues, positionals[0]!);
      if (!found) {
        io.err(`no job ${positionals[0]}`);
        return 1;
      }
      const { queue, job } = found;
      io.out(
        JSON.stringify(
          { ...(await summarize(queue, job)), data: job.data, returnvalue: job.returnvalue, stacktrace: job.stacktrace },
          null,
          2,
        ),
      );
      return 0;
    });
  },
};

export const jobsRetry: CommandModule = {
  options: { 'all-failed': { type: 'boolean' }, queue: { type: 'string' }, base: { type: 'string' } },
  async run({ positionals, values }, io) {
    if (!values['all-failed'] && positionals.length === 0) throw new UsageError('name job ids, or --all-failed');
    if (values['all-failed'] && positionals.length > 0) throw new UsageError('either job ids or --all-failed, not both');
    return withQueues(values.queue as string | undefined, values.base, async (queues, from) => {
      const retried = await retryFailed(queues, values['all-failed'] ? 'all' : positionals);
      retried.forEach((id) => io.out(`retried ${id}`));
      // Each id that was not retried, and why: nothing is left unexplained.
      for (const id of positionals.filter((p) => !retried.includes(p))) io.err(await notRetried(queues, from, id));
      if (values['all-failed'] && retried.length === 0) io.out(`no failed jobs in ${describe(queues, from)}`);
      io.out(`${retried.length} job(s) back in the queue`);
      return values['all-failed'] || retried.length === positionals.length ? 0 : 1;
    });
  },
};

function describe(queues: Queue[], from: QueueSource): string {
  return `${from.redis} (${from.source}), prefix ${from.prefix}, queues ${queues.map((q) => q.name).join(', ')}`;
}

/** Why `fulfil jobs retry <id>` left a job alone: unknown here, or not failed. */
async function notRetried(queues: Queue[], from: QueueSource, id: string): Promise<string> {
  const found = await findJob(queues, id);
  if (!found)
    return `not retried ${id}: no such job in ${describe(queues, from)} (finished jobs are kept for a while only; a wrong QUEUE_PREFIX or REDIS_URL shows none)`;
  const job = await summarize(found.queue, found.job);
  const outcome = job.outcome ? ` (${outcomeText(job)})` : '';
  return `not retried ${id}: it is ${job.state}${outcome}, and only failed jobs are retried${job.state === 'completed' ? ' (a replay of its command answers its stored result)' : ''}`;
}

/** The command's outcome as the order view words it: `refused 422`, `failed: <reason>`. */
function outcomeText(j: JobSummary): string {
  if (j.outcome === 'failed') return `failed: ${j.failedReason ?? ''}`;
  if (j.outcome) return `${j.outcome} ${j.answer ?? ''}`.trimEnd();
  return j.failedReason ?? '';
}

/** An ISO time to the second, in UTC, as the table shows it. */
function shortTime(iso: string | undefined): string {
  return iso ? isoTime(iso) : '-';
}
