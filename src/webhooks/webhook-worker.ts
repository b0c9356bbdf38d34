import { Worker, type Job } from 'bullmq';
import { closeWorker, countRunning } from '../queues/close-worker.ts';
import type { Logger } from 'pino';
import type { SecretBox } from '../auth/secret-box.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { webhooksPlace } from '@fulfil/contract';
import type { RedisConnection } from '@fulfil/client/transport';
import { deliverJob, type DeliverDeps } from './deliver-chain.ts';
import { CallSlots } from './call-slots.ts';
import { SigningSecrets } from './endpoint-secrets.ts';
import { systemResolve, type Resolve } from './send.ts';
import { WEBHOOKS_QUEUE, type WebhookJob, type WebhookQueue } from './webhook-queue.ts';

export type WebhookConfig = Pick<
  Config,
  | 'WEBHOOK_ALLOW_PRIVATE'
  | 'WEBHOOK_CONCURRENCY'
  | 'WEBHOOK_CONNECT_TIMEOUT_MS'
  | 'WEBHOOK_RESPONSE_TIMEOUT_MS'
  | 'WEBHOOK_RETRY_WINDOW_MS'
  | 'WEBHOOK_BACKOFF_BASE_MS'
  | 'WEBHOOK_BACKOFF_MAX_MS'
>;

export function deliverDeps(
  config: WebhookConfig,
  deps: { database: Database; secretBox: SecretBox; queue: WebhookQueue; log: Logger; resolve?: Resolve | undefined },
): DeliverDeps {
  const { secretBox, ...rest } = deps;
  return {
    ...rest,
    secrets: new SigningSecrets(secretBox),
    // At least one: a process at WEBHOOK_CONCURRENCY=0 runs no webhook worker, but a job run by hand still needs a slot.
    slots: new CallSlots(Math.max(1, config.WEBHOOK_CONCURRENCY)),
    send: {
      policy: { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE },
      resolve: deps.resolve ?? systemResolve,
      connectTimeoutMs: config.WEBHOOK_CONNECT_TIMEOUT_MS,
      responseTimeoutMs: config.WEBHOOK_RESPONSE_TIMEOUT_MS,
    },
    retry: { windowMs: config.WEBHOOK_RETRY_WINDOW_MS, baseMs: config.WEBHOOK_BACKOFF_BASE_MS, maxMs: config.WEBHOOK_BACKOFF_MAX_MS },
  };
}

/**
 * The webhook worker: a queue and a BullMQ worker of their own, apart from the command workers, so
 * a slow or hanging receiver only ever holds webhook slots (WEBHOOK_CONCURRENCY, each bounded by
 * the call's deadline) and never a command's.
 */
export function startWebhookWorker(deps: DeliverDeps & { prefix: string; connection: RedisConnection; concurrency: number }) {
  const place = webhooksPlace(deps.prefix, WEBHOOKS_QUEUE);
  const counted = countRunning((job: Job<WebhookJob>) => deliverJob(deps, job.data));
  const worker = new Worker<WebhookJob, number>(place.name, counted.processor, {
    prefix: place.prefix,
    connection: deps.connection,
    concurrency: deps.concurrency,
    // A call never runs longer than its deadline; the lock must outlast it.
    lockDuration: Math.max(30_000, deps.send.connectTimeoutMs + deps.send.responseTimeoutMs + 10_000),
  });
  worker.on('failed', (job, err) => deps.log.warn({ err, jobId: job?.id }, 'webhook job failed (Postgres or Redis); retried, else swept'));
  worker.on('error', (err) => deps.log.warn({ err }, 'webhook worker error'));
  return {
    worker,
    /** Inside the shutdown step's own 5 s: a delivery cut short is retried (at least once, as ever). */
    close: () => closeWorker(worker, deps.connection, { deadlineMs: 3_000, running: counted.running }),
  };
}
