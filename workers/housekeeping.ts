import { Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { Database } from '../src/db/client.ts';
import type { CommandQueues } from '../src/queues/command-queues.ts';
import type { RedisConnection } from '../src/redis/connections.ts';
import { pruneCommands } from './command-retention.ts';
import { logRecovery, recoverLostCommands } from './recover-lost.ts';

export const HOUSEKEEPING_QUEUE = 'fulfil-housekeeping';
/** Scheduler ids double as job names; every process upserts the same ones. */
export const RECOVER_LOST = 'recover-lost-commands';
export const PRUNE_COMMANDS = 'prune-commands';

export interface HousekeepingOptions {
  database: Database;
  prefix: string;
  /** Fail-fast connection for the scheduler upserts. */
  producer: RedisConnection;
  /** Makes the worker's blocking connection. */
  connection: () => RedisConnection;
  /** Where lost commands are queued again. */
  queues: CommandQueues;
  log: Logger;
  recoveryEveryMs: number;
  recoveryAfterMs: number;
  retentionHours: number;
  retentionEveryMs?: number;
}

/**
 * Lost-command recovery and command retention, once per period for the whole deployment: each is
 * a BullMQ job scheduler (one delayed job per period in Redis, whichever process upserted it last),
 * and the one worker process that takes the job runs it. Every worker process upserts the same
 * schedulers at start and once a period, so the periods follow the configuration of the newest
 * process, schedulers that Redis lost come back, and any process can run them. A run that fails is logged and left to the next period, not retried.
 */
export function startHousekeeping(opts: HousekeepingOptions): { close(): Promise<void> } {
  const { log } = opts;
  const queue = new Queue(HOUSEKEEPING_QUEUE, { prefix: opts.prefix, connection: opts.producer });
  const template = { opts: { attempts: 1, removeOnComplete: 20, removeOnFail: 50 } };
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  // Upserted again every period too: a Redis that lost its data (FLUSHALL, a restart without
  // persistence, a failover) loses the schedulers with it, and recovery is exactly what must then
  // run. An upsert of an unchanged scheduler changes nothing.
  const renew = setInterval(() => void schedule(), Math.max(opts.recoveryEveryMs, 5_000));
  renew.unref();
  const schedule = async (): Promise<void> => {
    try {
      await queue.upsertJobScheduler(RECOVER_LOST, { every: opts.recoveryEveryMs }, { name: RECOVER_LOST, ...template });
      await queue.upsertJobScheduler(
        PRUNE_COMMANDS,
        { every: opts.retentionEveryMs ?? 15 * 60_000 },
        { name: PRUNE_COMMANDS, ...template },
      );
    } catch (err) {
      // Redis not there yet: the schedulers another process made keep running; try again soon.
      if (closed) return;
      log.warn({ err }, 'could not set the housekeeping schedules; trying again');
      retry = setTimeout(() => void schedule(), 2_000);
    }
  };
  const scheduled = schedule();
  const worker = new Worker(
    HOUSEKEEPING_QUEUE,
    async (job) => {
      if (job.name === RECOVER_LOST) {
        const result = await recoverLostCommands({ database: opts.database, queues: opts.queues, olderThanMs: opts.recoveryAfterMs });
        logRecovery(log, result);
        return { requeued: result.requeued.length, failed: result.failed.length };
      }
      if (job.name === PRUNE_COMMANDS) {
        const pruned = await pruneCommands(opts.database, opts.retentionHours);
        if (pruned > 0) log.info({ pruned, retentionHours: opts.retentionHours }, 'pruned finished commands');
        return { pruned };
      }
      throw new Error(`unknown housekeeping job ${job.name}`);
    },
    { prefix: opts.prefix, connection: opts.connection(), concurrency: 1 },
  );
  worker.on('failed', (job, err) => log.warn({ err, task: job?.name }, 'housekeeping run failed; will try again next period'));
  worker.on('error', (err) => log.warn({ err }, 'housekeeping worker error'));
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      clearInterval(renew);
      await scheduled;
      await worker.close();
      await queue.close();
    },
  };
}
