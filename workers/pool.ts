import { hostname } from 'node:os';
import { MetricsTime, Worker, type Job, type MinimalJob } from 'bullmq';
import type { Logger } from 'pino';
import type { RedisConnection } from '../src/redis/connections.ts';
import type { Database } from '../src/db/client.ts';
import { markExhausted } from './mark-exhausted.ts';
import { runCommand } from './runner.ts';
import type { Registry } from './registry.ts';
import { observeCommand } from '../src/ops/metrics.ts';
import { retryDelay } from '../src/queues/retry-backoff.ts';
import { COMMAND_QUEUES, isJobName, type Envelope } from '../src/queues/job-map.ts';

export interface WorkerPool {
  workers: Worker[];
  /** Stops taking jobs and waits for running ones up to the deadline, then forces the close. */
  close(deadlineMs: number): Promise<void>;
}

export function startWorkers(opts: {
  database: Database;
  registry: Registry;
  prefix: string;
  connection: () => RedisConnection;
  concurrency: number;
  log: Logger;
}): WorkerPool {
  const { database, registry, log } = opts;
  const process = async (job: Job<Envelope<unknown>>) => {
    if (!isJobName(job.name)) throw new Error(`unknown job name ${job.name}`);
    const handler = registry.get(job.name)!;
    const jobLog = log.child({
      job: job.name,
      commandId: job.data.commandId,
      attempt: job.attemptsMade + 1,
      ...(job.data.requestId ? { reqId: job.data.requestId } : {}),
    });
    const started = performance.now();
    const result = await runCommand(database, handler, job.data, { log: jobLog });
    // How long it waited in the queue and how long it ran: the two halves of a slow command.
    const queuedMs = job.processedOn ? job.processedOn - job.timestamp : undefined;
    jobLog.info({ status: result.status, queuedMs, runMs: Math.round(performance.now() - started) }, 'command finished');
    observeCommand(job.name, result.status, (performance.now() - started) / 1000);
    // Postgres stays the record (HTTP reads it there); the job carries the same result for
    // producers without Postgres (FulfilmentClient awaits job.returnvalue).
    return result;
  };
  // Shown as a job's processedBy, so an operator can tell which process ran a command.
  const workerName = `${hostname()}-${globalThis.process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const workers = COMMAND_QUEUES.map((name) => {
    const w = new Worker(name, process, {
      name: workerName,
      prefix: opts.prefix,
      connection: opts.connection(),
      concurrency: opts.concurrency,
      metrics: { maxDataPoints: MetricsTime.ONE_WEEK }, // job totals for /metrics (exportPrometheusMetrics)
      // Jobs name the capped backoff; the delay doubles from the one the producer set.
      settings: {
        backoffStrategy: (attemptsMade: number, _type?: string, _err?: Error, job?: MinimalJob) =>
          retryDelay(attemptsMade, backoffBase(job)),
      },
    });
    w.on('failed', (job, err) => {
      log.warn({ err, job: job?.name, jobId: job?.id, attempts: job?.attemptsMade }, 'command attempt failed');
      if (job?.processedOn) observeCommand(job.name, 'error', (Date.now() - job.processedOn) / 1000);
      const commandId = (job?.data as Envelope<unknown> | undefined)?.commandId;
      if (job && typeof commandId === 'string' && job.attemptsMade >= (job.opts.attempts ?? 1)) {
        markExhausted(database, commandId).catch((e) => log.warn({ err: e, commandId }, 'could not mark command failed'));
      }
    });
    w.on('error', (err) => log.error({ err, queue: name }, 'worker error'));
    return w;
  });
  return {
    workers,
    async close(deadlineMs) {
      let timer: NodeJS.Timeout | undefined;
      const graceful = Promise.all(workers.map((w) => w.close())).then(() => 'closed' as const);
      const deadline = new Promise<'deadline'>((r) => (timer = setTimeout(() => r('deadline'), deadlineMs)));
      const outcome = await Promise.race([graceful, deadline]);
      clearTimeout(timer);
      if (outcome === 'deadline') {
        log.warn({ deadlineMs }, 'workers did not finish in time; forcing close (unfinished jobs will be redelivered)');
        await Promise.all(workers.map((w) => w.close(true)));
      }
    },
  };
}

function backoffBase(job?: MinimalJob): number {
  const backoff = job?.opts.backoff;
  const delay = typeof backoff === 'object' ? backoff.delay : backoff;
  return typeof delay === 'number' && delay > 0 ? delay : 250;
}
