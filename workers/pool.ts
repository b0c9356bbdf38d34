import { hostname } from 'node:os';
import { MetricsTime, Worker, type Job, type MinimalJob } from 'bullmq';
import type { Logger } from 'pino';
import type { RedisConnection } from '@fulfil/client/transport';
import type { Database } from '../src/db/client.ts';
import { markExhausted } from './mark-exhausted.ts';
import { commandClaimOf } from '../src/commands/command-claim.ts';
import { runCommand } from './runner.ts';
import type { Registry } from './registry.ts';
import { observeCommand } from '../src/telemetry/metrics-registry.ts';
import { retryDelay, isJobName } from '@fulfil/contract';
import { closeWorker, countRunning, type WorkerClose } from '../src/queues/close-worker.ts';
import type { QueuePlace, Envelope } from '@fulfil/contract';
import { LocalInboxes, ReplySender } from '../src/queues/reply-channel.ts';
import { DEFAULT_DEADLINE_POLICY, type DeadlinePolicy } from '../src/domain/deadline-policy.ts';

export interface WorkerPool {
  readonly workers: readonly Worker[];
  /** Starts taking jobs of this queue, `concurrency` at once (default the pool's); a no-op when already taking them. */
  consume(place: QueuePlace, concurrency?: number): void;
  /** Stops taking jobs of this queue; running ones finish first. */
  release(place: QueuePlace): Promise<void>;
  /** Stops taking jobs and waits for running ones up to the deadline, then forces the close. */
  close(deadlineMs: number): Promise<void>;
}

export function startWorkers(opts: {
  database: Database;
  registry: Registry;
  connection: () => RedisConnection;
  /** Jobs run at once per queue consumed. */
  concurrency: number;
  log: Logger;
  places: readonly QueuePlace[];
  /** Hands each answer to the API process that waits for it (the job's replyTo); by default published on the connection its job came on. */
  replies?: ReplySender;
  /** Called after a command committed (its events wait in the outbox): wakes the relay (src/events/relay-wake.ts). */
  onCommitted?: () => void;
  /** Called after a command committed that changed an order's deadline timers (src/timers/). */
  onTimers?: (orderId: number) => void;
  /** The deadline policy handlers use (default: DEFAULT_DEADLINE_POLICY). */
  deadlines?: DeadlinePolicy;
}): WorkerPool {
  const { database, registry, log } = opts;
  // Without a sender of the caller's, answers are only published, each on its job's connection
  // (ReplySender.send's `via`): the first job's serves as the sender's own, so none is opened for it.
  let replies = opts.replies;
  const replySender = (connection: RedisConnection) => (replies ??= new ReplySender(connection, new LocalInboxes()));
  // `connection`: the one the job came on, where BullMQ finishes it (the answer goes out with it).
  const process = async (job: Job<Envelope<unknown>>, connection: RedisConnection) => {
    if (!isJobName(job.name)) throw new Error(`unknown job name ${job.name}`);
    const handler = registry.get(job.name)!;
    // Made only when something logs: most commands never do below info.
    let jobLog: Logger | undefined;
    const ctx = {
      deadlines: opts.deadlines ?? DEFAULT_DEADLINE_POLICY,
      get log() {
        return (jobLog ??= log.child({
          job: job.name,
          commandId: job.data.commandId,
          attempt: job.attemptsMade + 1,
          ...(job.data.requestId ? { reqId: job.data.requestId } : {}),
        }));
      },
    };
    const started = performance.now();
    // The job carries the trace of the request that sent it (job.opts.telemetry.metadata).
    const { timersOf, ...result } = await runCommand(database, handler, job.data, ctx, job.opts.telemetry?.metadata);
    if (log.isLevelEnabled('info')) {
      // How long it waited in the queue and how long it ran: the two halves of a slow command.
      const queuedMs = job.processedOn ? job.processedOn - job.timestamp : undefined;
      ctx.log.info({ status: result.status, queuedMs, runMs: Math.round(performance.now() - started) }, 'command finished');
    }
    observeCommand(job.name, result.status, (performance.now() - started) / 1000);
    // Only a success wrote events; a spurious wake (a replayed answer) costs the relay one empty look.
    if (result.status === 200) opts.onCommitted?.();
    if (timersOf !== undefined) opts.onTimers?.(timersOf);
    // Committed in Postgres: the waiting caller may answer now, before BullMQ marks the job done.
    if (typeof job.data.replyTo === 'string')
      replySender(connection).send(job.data.replyTo, job.data.commandId, result, job.data.requestHash, connection);
    // Postgres stays the record (HTTP reads it there); the job carries the same result for
    // producers without Postgres (FulfilmentClient awaits job.returnvalue).
    return result;
  };
  // Shown as a job's processedBy, so an operator can tell which process ran a command.
  const workerName = `${hostname()}-${globalThis.process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const byPlace = new Map<string, { worker: Worker; connection: RedisConnection; running: () => number }>();
  let closing = false;
  const keyOf = (p: QueuePlace) => `${p.prefix}\n${p.name}`;
  const start = ({ prefix, name }: QueuePlace, concurrency: number) => {
    const connection = opts.connection();
    const counted = countRunning((job: Job<Envelope<unknown>>) => process(job, connection));
    const w = new Worker(name, counted.processor, {
      name: workerName,
      prefix,
      connection,
      concurrency,
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
        const data = job.data as Envelope<unknown>;
        const recorded =
          isJobName(job.name) && typeof data.requestHash === 'string' && typeof data.actor?.brokerageId === 'number'
            ? commandClaimOf(job.name, data as Envelope<unknown> & { actor: { brokerageId: number } })
            : undefined;
        markExhausted(database, commandId, recorded).catch((e) => log.warn({ err: e, commandId }, 'could not mark command failed'));
      }
    });
    w.on('error', (err) => log.error({ err, queue: name, prefix }, 'worker error'));
    return { worker: w, connection, running: counted.running };
  };
  const pool: WorkerPool = {
    get workers() {
      return [...byPlace.values()].map((e) => e.worker);
    },
    consume(place, concurrency = opts.concurrency) {
      // Once closing, a late call (the shard layouts' timer) must not start a worker nobody closes.
      if (!closing && !byPlace.has(keyOf(place))) byPlace.set(keyOf(place), start(place, concurrency));
    },
    async release(place) {
      const e = byPlace.get(keyOf(place));
      byPlace.delete(keyOf(place));
      await e?.worker.close();
    },
    async close(deadlineMs) {
      closing = true;
      const entries = [...byPlace.values()];
      const outcomes = await Promise.all(entries.map((e) => closeWorker(e.worker, e.connection, { deadlineMs, running: e.running })));
      const queuesWhere = (o: WorkerClose) => entries.filter((_, i) => outcomes[i] === o).map((e) => e.worker.name);
      if (outcomes.includes('deadline')) {
        log.warn(
          { deadlineMs, queues: queuesWhere('deadline') },
          'workers did not finish in time; forced closed (unfinished jobs will be redelivered)',
        );
      }
      if (outcomes.includes('redis away')) {
        log.info({ queues: queuesWhere('redis away') }, 'Redis away at shutdown and no job running: workers closed without waiting for it');
      }
    },
  };
  for (const place of opts.places) pool.consume(place);
  return pool;
}

function backoffBase(job?: MinimalJob): number {
  const backoff = job?.opts.backoff;
  const delay = typeof backoff === 'object' ? backoff.delay : backoff;
  return typeof delay === 'number' && delay > 0 ? delay : 250;
}
