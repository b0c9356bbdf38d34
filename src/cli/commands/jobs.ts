import { Queue } from 'bullmq';
import { loadConfig } from '../../config.ts';
import { findJob, listJobs, retryFailed, summarize } from '../../ops/failed-jobs.ts';
import { JOB_STATES } from '../../ops/queue-stats.ts';
import { COMMAND_QUEUES, EVENTS_QUEUE } from '../../queues/job-map.ts';
import { blockingConnection } from '../../redis/connections.ts';
import { resolveRedis } from '../../redis/resolve.ts';
import { intArg, UsageError, type CliCommand } from '../command.ts';

const ALL_QUEUES = [...COMMAND_QUEUES, EVENTS_QUEUE];

async function withQueues<T>(only: string | undefined, fn: (queues: Queue[]) => Promise<T>): Promise<T> {
  if (only !== undefined && !ALL_QUEUES.includes(only as never)) throw new UsageError(`--queue: one of ${ALL_QUEUES.join(', ')}`);
  const config = loadConfig();
  // Never start a private Redis here: an empty one would only hide the real queues.
  const redis = await resolveRedis({ redisUrl: config.REDIS_URL, dataDir: config.DATA_DIR, binary: undefined });
  const connection = blockingConnection(redis.url);
  const queues = (only ? [only] : ALL_QUEUES).map((name) => new Queue(name, { prefix: config.QUEUE_PREFIX, connection }));
  try {
    return await fn(queues);
  } finally {
    await Promise.all(queues.map((q) => q.close()));
    connection.disconnect();
  }
}

export const jobsList: CliCommand = {
  path: ['jobs', 'list'],
  summary: `Lists jobs in one state (default failed) across the queues, newest first.\nStates: ${JOB_STATES.join(', ')}.`,
  usage: 'jobs list [--state failed] [--queue <name>] [--limit 50] [--json]',
  options: { state: { type: 'string', default: 'failed' }, queue: { type: 'string' }, limit: { type: 'string', default: '50' }, json: { type: 'boolean' } },
  async run({ values }, io) {
    const state = String(values.state);
    if (!JOB_STATES.includes(state as never)) throw new UsageError(`--state: one of ${JOB_STATES.join(', ')}`);
    const limit = intArg(values.limit as string, '--limit');
    return withQueues(values.queue as string | undefined, async (queues) => {
      const jobs = await listJobs(queues, state, limit);
      if (values.json) jobs.forEach((j) => io.out(JSON.stringify(j)));
      else {
        io.out(`${'QUEUE'.padEnd(15)}${'JOB'.padEnd(46)}${'NAME'.padEnd(20)}TRIES  REASON`);
        for (const j of jobs) io.out(`${j.queue.padEnd(15)}${j.id.padEnd(46)}${j.name.padEnd(20)}${String(j.attempts).padEnd(7)}${j.failedReason ?? ''}`);
        io.out(`${jobs.length} ${state} job(s)`);
      }
      return 0;
    });
  },
};

export const jobsShow: CliCommand = {
  path: ['jobs', 'show'],
  summary: 'Shows one job: its state, attempts, failure reason and stack, payload and result.',
  usage: 'jobs show <job_id>',
  async run({ positionals }, io) {
    if (positionals.length !== 1) throw new UsageError('expected exactly one job id');
    return withQueues(undefined, async (queues) => {
      const found = await findJob(queues, positionals[0]!);
      if (!found) {
        io.err(`no job ${positionals[0]}`);
        return 1;
      }
      const { queue, job } = found;
      io.out(JSON.stringify({ ...(await summarize(queue, job)), data: job.data, returnvalue: job.returnvalue, stacktrace: job.stacktrace }, null, 2));
      return 0;
    });
  },
};

export const jobsRetry: CliCommand = {
  path: ['jobs', 'retry'],
  summary: 'Puts failed jobs back in their queue (by id, or every failed one with --all-failed).\nSafe to repeat: a command that did finish answers its stored result and changes nothing.',
  usage: 'jobs retry <job_id...> | --all-failed [--queue <name>]',
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
