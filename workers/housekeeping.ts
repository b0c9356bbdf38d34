import { Queue, Worker, type Job } from 'bullmq';
import { closeWorker, countRunning } from '../src/queues/close-worker.ts';
import type { RedisConnection } from '@fulfil/client/transport';
import { housekeepingPlace } from '@fulfil/contract';
import { housekeepingSchedules, runHousekeepingJob, type HousekeepingName, type HousekeepingTasks } from './housekeeping/registry.ts';
import type { HousekeepingContext } from './housekeeping/task.ts';

export { HOUSEKEEPING_QUEUE } from '@fulfil/contract';
/** The scheduler (and job name) of lost-command recovery, which tests wait for. */
export const RECOVER_LOST = 'recover-lost-commands' satisfies HousekeepingName;

export interface HousekeepingOptions extends HousekeepingContext {
  prefix: string;
  /** Fail-fast connection for the scheduler upserts. */
  producer: RedisConnection;
  /** Makes the worker's blocking connection. */
  connection: () => RedisConnection;
  /** The registry's tasks unless a test gives others. */
  tasks?: HousekeepingTasks;
}

/**
 * The tasks of housekeeping/registry.ts, each once per period for the whole deployment: each is
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
  // Upserted again every (shortest) period too: a Redis that lost its data (FLUSHALL, a restart without
  // persistence, a failover) loses the schedulers with it, and recovery is exactly what must then
  // run. An upsert of an unchanged scheduler changes nothing.
  const schedules = housekeepingSchedules(opts.config, opts.tasks);
  const renew = setInterval(() => void schedule(), Math.max(Math.min(...schedules.map((s) => s.everyMs)), 5_000));
  renew.unref();
  const schedule = async (): Promise<void> => {
    try {
      for (const { name, everyMs } of schedules) await queue.upsertJobScheduler(name, { every: everyMs }, { name, ...template });
    } catch (err) {
      // Redis not there yet: the schedulers another process made keep running; try again soon.
      if (closed) return;
      log.warn({ err }, 'could not set the housekeeping schedules; trying again');
      retry = setTimeout(() => void schedule(), 2_000);
    }
  };
  const scheduled = schedule();
  const counted = countRunning((job: Job) => runHousekeepingJob(job.name, opts, opts.tasks));
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
