import type { FastifyInstance } from 'fastify';
import { CredentialCache } from '../auth/credential-cache.ts';
import { RateLimiter } from '../auth/rate-limit.ts';
import { buildApp } from '../http/app.ts';
import { HttpMetrics } from '../telemetry/metrics-registry.ts';
import { CommandQueues, producerConnection } from '@fulfil/client/transport';
import { CommandDispatcher } from '../queues/dispatcher.ts';
import { ReplyWaiters } from '../queues/reply-waiters.ts';
import { WebhookQueue } from '../webhooks/webhook-queue.ts';
import { databaseWritable } from './database.ts';
import { openFileStore } from '../files/open-file-store.ts';
import { waitReady } from './redis-readiness.ts';
import { TimerQueue } from '../timers/deadline-timers.ts';
import { armOrderTimers } from '../timers/timer-worker.ts';
import type { RoleContext } from './role-context.ts';
import type { ServiceQueuesAddress } from './service-address.ts';

/** The API role: the HTTP ingress, its command dispatcher and reply channel, and /metrics and /ops. */
export async function startApiRole(ctx: RoleContext): Promise<{ app: FastifyInstance; url: string }> {
  const { config, ops, log, database, readDatabase, secretBox, redis, prefix, inboxes, webhookResolve, onStop, track, blocking } = ctx;
  const producer = track(producerConnection(redis.url));
  await waitReady(producer, redis.url, config.STARTUP_TIMEOUT_MS);
  const queues = new CommandQueues({
    prefix,
    connection: producer,
    attempts: config.JOB_ATTEMPTS,
    backoffMs: config.JOB_BACKOFF_MS,
    shards: config.COMMAND_SHARDS,
    checkShards: true,
  });
  // Said at start, not only on each refused command: the operator set the wrong count.
  await queues
    .checkShardCount()
    .catch((err: unknown) => log.error({ err }, 'COMMAND_SHARDS does not match the workers; commands are refused'));
  // Answers come back on this process's reply channel; BullMQ's events stay for observers.
  const waiters = new ReplyWaiters(prefix, blocking(), inboxes);
  const webhookQueue = new WebhookQueue({ prefix, connection: producer });
  // Test orders are made here (src/sandbox/test-orders.ts): their timers are armed at once.
  const timerQueue = new TimerQueue({ prefix, connection: producer });
  onStop({
    phase: 'queues',
    name: 'queues',
    close: async () => {
      await waiters.close();
      await queues.close();
      await webhookQueue.close();
      await timerQueue.queue.close();
    },
  });
  await waiters.ready();
  let credentialCache: CredentialCache | undefined;
  if (config.CREDENTIAL_CACHE_MS > 0) {
    const cache = new CredentialCache({ ttlMs: config.CREDENTIAL_CACHE_MS, maxEntries: 10_000 });
    await cache.start(database);
    onStop({ phase: 'queues', name: 'credential cache', close: () => cache.stop() });
    credentialCache = cache;
  }
  const rateLimiter = new RateLimiter(producer, prefix, {
    perCredential: config.RATE_LIMIT_PER_MINUTE,
    authFailuresPerAddress: config.AUTH_FAILURES_PER_MINUTE,
  });
  // After HTTP: the counts of the last requests still go to Redis before it closes.
  onStop({ phase: 'queues', name: 'rate limiter', close: () => rateLimiter.close() });
  const dispatcher = new CommandDispatcher({ database, queues, waiters, waitMs: config.COMMAND_WAIT_MS, log });
  const app = await buildApp({
    config,
    database,
    readDatabase,
    log,
    dispatcher,
    secretBox,
    webhooks: {
      queue: webhookQueue,
      rules: {
        policy: { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE },
        resolve: webhookResolve,
        maxPerBrokerage: config.WEBHOOK_MAX_ENDPOINTS_PER_BROKERAGE,
      },
    },
    ...(credentialCache ? { credentialCache } : {}),
    files: await openFileStore(config, database),
    armAdvance: async (clockId) => {
      await timerQueue
        .armAdvance(clockId)
        .catch((err: unknown) => log.warn({ err, clockId }, "could not start a test clock's advance; the timer sweep will"));
    },
    sendClockEvents: async (deliveries) => {
      await webhookQueue
        .kick(deliveries.map((d) => ({ endpointId: d.endpointId, orderId: null, deliveryId: d.deliveryId, attempts: 0 })))
        .catch((err: unknown) => log.warn({ err }, "could not queue a test clock event's deliveries; the webhook sweep will"));
    },
    armTimers: async (orderIds) => {
      await armOrderTimers(database, timerQueue, orderIds).catch((err: unknown) =>
        log.warn({ err, orderIds }, "could not arm a new order's timers; the sweep will"),
      );
    },
    ops: {
      queues: [...queues.queues(), webhookQueue.queue],
      metrics: new HttpMetrics(),
      write: ops.OPS_WRITE,
      address: serviceQueuesAddress(ctx),
    },
    rateLimiter,
    readiness: [
      { name: 'postgres', check: () => databaseWritable(database) },
      { name: 'redis', check: async () => void (await producer.ping()) },
    ],
  });
  onStop({ phase: 'http', name: 'http', close: () => app.close() });
  const url = await app.listen({ port: config.PORT, host: config.HOST });
  return { app, url };
}

/** Where this service's commands go: left in DATA_DIR/service.json and told at /ops/queue_address (D-160, D-169). */
export function serviceQueuesAddress(ctx: Pick<RoleContext, 'redis' | 'prefix' | 'config' | 'database'>): ServiceQueuesAddress {
  return {
    redis_url: ctx.redis.url,
    queue_prefix: ctx.prefix,
    command_shards: ctx.config.COMMAND_SHARDS,
    database: ctx.database.embedded ? 'embedded' : 'postgres',
  };
}
