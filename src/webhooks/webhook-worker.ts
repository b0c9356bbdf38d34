import { DelayedError, Worker, type Job } from 'bullmq';
import { closeWorker, countRunning } from '../queues/close-worker.ts';
import type { Logger } from 'pino';
import type { SecretBox } from '../auth/secret-box.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { webhooksPlace } from '@fulfil/contract';
import type { RedisConnection } from '@fulfil/client/transport';
import { countWebhookDeferred, reportWebhookScheduling } from '../telemetry/webhook-metrics.ts';
import { DeferJob, EndpointOwners } from './admission.ts';
import { Breakers } from './breaker.ts';
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
  | 'WEBHOOK_MAX_INFLIGHT_PER_BROKERAGE'
  | 'WEBHOOK_MAX_INFLIGHT_PER_ENDPOINT'
  | 'WEBHOOK_BREAKER_FAILURES'
  | 'WEBHOOK_BREAKER_COOLDOWN_MS'
  | 'WEBHOOK_RETRY_AFTER_MAX_MS'
>;

/**
 * The shares of the call slots (docs/WEBHOOKS.md, Fair shares): by default a brokerage may have
 * half of them in flight and an endpoint a quarter, and an eighth are kept for brokerages that
 * have none in flight.
 */
export function slotCaps(config: WebhookConfig, capacity: number) {
  return {
    perBrokerage: config.WEBHOOK_MAX_INFLIGHT_PER_BROKERAGE ?? Math.ceil(capacity / 2),
    perEndpoint: config.WEBHOOK_MAX_INFLIGHT_PER_ENDPOINT ?? Math.ceil(capacity / 4),
    reserve: Math.floor(capacity / 8),
  };
}

export function deliverDeps(
  config: WebhookConfig,
  deps: { database: Database; secretBox: SecretBox; queue: WebhookQueue; log: Logger; resolve?: Resolve | undefined },
): DeliverDeps {
  const { secretBox, ...rest } = deps;
  // At least one: a process at WEBHOOK_CONCURRENCY=0 runs no webhook worker, but a job run by hand still needs a slot.
  const capacity = Math.max(1, config.WEBHOOK_CONCURRENCY);
  const callMs = config.WEBHOOK_CONNECT_TIMEOUT_MS + config.WEBHOOK_RESPONSE_TIMEOUT_MS;
  return {
    ...rest,
    secrets: new SigningSecrets(secretBox),
    slots: new CallSlots(capacity, slotCaps(config, capacity)),
    breakers: new Breakers({
      failures: config.WEBHOOK_BREAKER_FAILURES,
      cooldownMs: config.WEBHOOK_BREAKER_COOLDOWN_MS,
      maxCooldownMs: config.WEBHOOK_BACKOFF_MAX_MS,
      probeWindowMs: callMs + 5_000,
    }),
    owners: new EndpointOwners(deps.database),
    send: {
      policy: { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE },
      resolve: deps.resolve ?? systemResolve,
      connectTimeoutMs: config.WEBHOOK_CONNECT_TIMEOUT_MS,
      responseTimeoutMs: config.WEBHOOK_RESPONSE_TIMEOUT_MS,
    },
    retry: {
      windowMs: config.WEBHOOK_RETRY_WINDOW_MS,
      baseMs: config.WEBHOOK_BACKOFF_BASE_MS,
      maxMs: config.WEBHOOK_BACKOFF_MAX_MS,
      retryAfterMaxMs: config.WEBHOOK_RETRY_AFTER_MAX_MS,
    },
  };
}

/**
 * The webhook worker: a queue and a BullMQ worker of their own, apart from the command workers, so
 * a slow or hanging receiver only ever holds webhook slots (WEBHOOK_CONCURRENCY, each bounded by
 * the call's deadline) and never a command's. The worker takes twice as many jobs as there are
 * slots, and one more: a job waiting for its brokerage's turn holds a place, and at most as many
 * wait as there are slots (CallSlots.mayWait), so a place is always open for the next job, which
 * may be another brokerage's. A job that should not run yet (DeferJob) goes back to the queue,
 * delayed, the same job under the same id.
 */
export function startWebhookWorker(deps: DeliverDeps & { prefix: string; connection: RedisConnection; concurrency: number }) {
  const place = webhooksPlace(deps.prefix, WEBHOOKS_QUEUE);
  reportWebhookScheduling({ callsInFlight: () => deps.slots.inFlight, breakersOpen: () => deps.breakers.openCount });
  const counted = countRunning(async (job: Job<WebhookJob>, token?: string) => {
    try {
      return await deliverJob(deps, job.data, { canDefer: true });
    } catch (err) {
      if (!(err instanceof DeferJob)) throw err;
      countWebhookDeferred(err.reason);
      await job.moveToDelayed(Math.round(err.untilMs), token);
      throw new DelayedError();
    }
  });
  const worker = new Worker<WebhookJob, number>(place.name, counted.processor, {
    prefix: place.prefix,
    connection: deps.connection,
    concurrency: deps.concurrency * 2 + 1,
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
