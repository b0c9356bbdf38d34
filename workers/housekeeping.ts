import { Queue, Worker, type Job } from 'bullmq';
import { closeWorker, countRunning } from '../src/queues/close-worker.ts';
import type { Logger } from 'pino';
import type { Database } from '../src/db/client.ts';
import type { CommandQueues, RedisConnection } from '@fulfil/client/transport';
import { housekeepingPlace } from '@fulfil/contract';
import { pruneCommands } from './command-retention.ts';
import { logRecovery, recoverLostCommands } from './recover-lost.ts';

export { HOUSEKEEPING_QUEUE } from '@fulfil/contract';
/** Scheduler ids double as job names; every process upserts the same ones. */
export const RECOVER_LOST = 'recover-lost-commands';
export const PRUNE_COMMANDS = 'prune-commands';
export const SWEEP_WEBHOOKS = 'sweep-webhooks';

export interface HousekeepingOptions {
  database: Database;
  prefix: string;
  /** Fail-fast connection for the scheduler upserts. */
  producer: RedisConnection;
  /** Makes the worker's blocking connection. */
  connection: () => RedisConnection;
  /** Where lost commands are queued again. */
  queues: CommandQueues;
  /** The shard counts in service, where recovery looks for a command's job. */
  shardCounts?: () => readonly number[];
  log: Logger;
  recoveryEveryMs: number;
  recoveryAfterMs: number;
  retentionHours: number;
  retentionEveryMs?: number;
  /** Re-queues webhook deliveries Postgres owes but Redis lost (src/webhooks/sweep.ts). */
  webhookSweep?: { everyMs: number; run(): Promise<number> };
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
  const place = housekeepingPlace(opts.prefix);
  const queue = new Queue(place.name, { prefix: place.prefix, connection: opts.producer });
  // The connection's own listener logs Redis trouble once per outage; without one here BullMQ 6
  // prints each reconnect's error to stderr as a multi-line stack trace.
  queue.on('error', () => {});
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
      if (opts.webhookSweep) {
        await queue.upsertJobScheduler(SWEEP_WEBHOOKS, { every: opts.webhookSweep.everyMs }, { name: SWEEP_WEBHOOKS, ...template });
      }
    } catch (err) {
      // Redis not there yet: the schedulers another process made keep running; try again soon.
      if (closed) return;
      log.warn({ err }, 'could not set the housekeeping schedules; trying again');
      retry = setTimeout(() => void schedule(), 2_000);
    }
  };
  const scheduled = schedule();
  const counted = countRunning(async (job: Job) => {
    if (job.name === RECOVER_LOST) {
      const result = await recoverLostCommands({
        database: opts.database,
        queues: opts.queues,
        ...(opts.shardCounts ? { shardCounts: opts.shardCounts } : {}),
        olderThanMs: opts.recoveryAfterMs,
      });
      logRecovery(log, result);
      return { requeued: result.requeued.length, failed: result.failed.length };
    }
    if (job.name === PRUNE_COMMANDS) {
      const pruned = await pruneCommands(opts.database, opts.retentionHours);
      if (pruned > 0) log.info({ pruned, retentionHours: opts.retentionHours }, 'pruned finished commands');
      return { pruned };
    }
    if (job.name === SWEEP_WEBHOOKS && opts.webhookSweep) {
      const queued = await opts.webhookSweep.run();
      return { queued };
    }
    throw new Error(`unknown housekeeping job ${job.name}`);
  });
  const connection = opts.connection();
  const worker = new Worker(place.name, counted.processor, { prefix: place.prefix, connection, concurrency: 1 });
  worker.on('failed', (job, err) => log.warn({ err, task: job?.name }, 'housekeeping run failed; will try again next period'));
  worker.on('error', (err) => log.warn({ err }, 'housekeeping worker error'));
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      clearInterval(renew);
      await scheduled;
      // Inside the shutdown step's own 5 s: a run still going is cut short and runs next period.
      await closeWorker(worker, connection, { deadlineMs: 3_000, running: counted.running });
      await queue.close();
    },
  };
}
