import { Queue } from 'bullmq';
import { loadConfig } from '../../config.ts';
import { findJob, listJobs, retryFailed, summarize } from '../../ops/failed-jobs.ts';
import { JOB_STATES } from '../../ops/queue-stats.ts';
import { COMMAND_QUEUES, EVENTS_QUEUE } from '../../queues/job-map.ts';
import { blockingConnection } from '../../redis/connections.ts';
import { resolveRedis } from '../../redis/resolve.ts';
import { redactedUrl } from '../../ops/redact-url.ts';
import { intArg, UsageError, type CommandModule } from '../command.ts';

const ALL_QUEUES = [...COMMAND_QUEUES, EVENTS_QUEUE];

/** Where the jobs were read: the Redis address (any password hidden) and the BullMQ prefix. */
export interface QueueSource {
  redis: string;
  source: string;
  prefix: string;
}

async function withQueues<T>(only: string | undefined, fn: (queues: Queue[], from: QueueSource) => Promise<T>): Promise<T> {
  if (only !== undefined && !ALL_QUEUES.includes(only as never)) throw new UsageError(`--queue: one of ${ALL_QUEUES.join(', ')}`);
  const config = loadConfig();
  // Never start a private Redis here: an empty one would only hide the real queues.
  const redis = await resolveRedis({ redisUrl: config.REDIS_URL, dataDir: config.DATA_DIR, binary: undefined });
  const connection = blockingConnection(redis.url);
  const queues = (only ? [only] : ALL_QUEUES).map((name) => new Queue(name, { prefix: config.QUEUE_PREFIX, connection }));
  try {
    return await fn(queues, { redis: redactedUrl(redis.url), source: redis.source, prefix: config.QUEUE_PREFIX });
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
  },
  async run({ values }, io) {
    const state = String(values.state);
    if (!JOB_STATES.includes(state as never)) throw new UsageError(`--state: one of ${JOB_STATES.join(', ')}`);
    const limit = intArg(values.limit as string, '--limit');
    return withQueues(values.queue as string | undefined, async (queues, from) => {
      const jobs = await listJobs(queues, state, limit);
      if (values.json) jobs.forEach((j) => io.out(JSON.stringify(j)));
      else {
        io.out(`${state} jobs in ${from.redis} (${from.source}), prefix ${from.prefix}, queues ${queues.map((q) => q.name).join(', ')}`);
        io.out(`${'QUEUE'.padEnd(15)}${'JOB'.padEnd(40)}${'NAME'.padEnd(20)}${'QUEUED'.padEnd(21)}${'FINISHED'.padEnd(21)}TRIES  REASON`);
        for (const j of jobs) {
          io.out(
            `${j.queue.padEnd(15)}${j.id.padEnd(40)}${j.name.padEnd(20)}${shortTime(j.timestamp).padEnd(21)}${shortTime(j.finishedOn).padEnd(21)}` +
              `${String(j.attempts).padEnd(7)}${j.failedReason ?? ''}`,
          );
        }
        io.out(`${jobs.length} ${state} job(s)`);
      }
      return 0;
    });
  },
};

export const jobsShow: CommandModule = {
  async run({ positionals }, io) {
    if (positionals.length !== 1) throw new UsageError('expected exactly one job id');
    return withQueues(undefined, async (queues) => {
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
  options: { 'all-failed': { type: 'boolean' }, queue: { type: 'string' } },
  async run({ positionals, values }, io) {
    if (!values['all-failed'] && positionals.length === 0) throw new UsageError('name job ids, or --all-failed');
    if (values['all-failed'] && positionals.length > 0) throw new UsageError('either job ids or --all-failed, not both');
    return withQueues(values.queue as string | undefined, async (queues) => {
      const retried = await retryFailed(queues, values['all-failed'] ? 'all' : positionals);
      retried.forEach((id) => io.out(`retried ${id}`));
      io.out(`${retried.length} job(s) back in the queue`);
      return values['all-failed'] || retried.length === positionals.length ? 0 : 1;
    });
  },
};

/** An ISO time to the second, in UTC, as the table shows it. */
function shortTime(iso: string | undefined): string {
  return iso ? `${iso.slice(0, 19).replace('T', ' ')}Z` : '-';
}
