import { startTracing, tracingActive, tracingWanted } from './telemetry/tracing.ts';
import type { FastifyInstance } from 'fastify';
import type { SecretBox } from './auth/secret-box.ts';
import { ConfigError, type Config } from './config.ts';
import { withDeadline } from './deadline.ts';
import { openDatabase, type Database } from './db/client.ts';
import { assertDriverPatched } from './db/driver-patch.ts';
import { serveEmbeddedDatabase } from './db/pglite-socket.ts';
import { createLogger, type Logger } from './logger.ts';
import { isLoopbackHost } from './ops/ops-auth.ts';
import { loadOpsConfig, type OpsConfig } from './ops/ops-config.ts';
import { restrictUmask } from './private-dir.ts';
import { leaveServiceAddress } from './service/service-address.ts';
import { LocalInboxes } from './queues/reply-channel.ts';
import { blockingConnection, producerConnection, type RedisConnection } from '@fulfil/client/transport';
import { redisUrlForLog } from '@fulfil/client/transport';
import { resolveRedis, type ResolvedRedis } from './redis/resolve.ts';
import { serviceQueuesAddress, startApiRole } from './service/api-role.ts';
import { openMigratedDatabase, pgliteDir, poolOptions, secretBoxFor } from './service/database.ts';
import { waitReady, watchConnection } from './service/redis-readiness.ts';
import { STOP_PHASES, type RoleContext, type Roles, type StopStep } from './service/role-context.ts';
import { startWebhooksRole } from './service/webhooks-role.ts';
import { startWorkerMetrics } from './service/worker-metrics.ts';
import { startWorkerRole } from './service/worker-role.ts';
import { systemResolve, type Resolve } from './webhooks/send.ts';
import { WebhookQueue } from './webhooks/webhook-queue.ts';

export type { Roles };

export interface Service {
  config: Config;
  log: Logger;
  database: Database;
  /** Where the inventory index and the event feed read: the replica of DATABASE_READ_URL, else `database`. */
  readDatabase: Database;
  redis: ResolvedRedis;
  secretBox: SecretBox;
  app?: FastifyInstance;
  /** Base URL of the HTTP ingress when the api role runs. */
  url?: string;
  /** Base URL of /metrics and /livez of a worker-only process (METRICS_PORT). */
  metricsUrl?: string;
  stop(): Promise<void>;
}

/**
 * Starts the roles in one process. Shutdown runs in the reverse of the dependency order:
 * HTTP first (no new commands), then workers (finish or hand back jobs within the deadline),
 * then queues and listeners, then the database, then Redis connections and a private Redis.
 */
export async function startService(
  config: Config,
  roles: Roles,
  log = createLogger(config.LOG_LEVEL),
  opts: {
    /** Operator settings read beside the configuration (ops/ops-config.ts). */
    ops?: OpsConfig;
    /** Sees every statement the service sends (postgres.js): statement budgets, benchmarks. */
    onStatement?: (text: string) => void;
    /** How webhook hosts are resolved (the system resolver); tests answer as a rebinding DNS server would. */
    webhookResolve?: Resolve;
  } = {},
): Promise<Service> {
  // Before anything starts: without the driver's patch a Postgres restart could crash this process.
  assertDriverPatched();
  const ops = opts.ops ?? loadOpsConfig();
  // What the service writes under DATA_DIR (and a private redis-server's AOF) is this user's only.
  restrictUmask();
  const hooks = { ...(opts.onStatement ? { onStatement: opts.onStatement } : {}) };
  // Open operator pages would show job payloads and failure reasons to anyone who can reach the
  // port: the API serves /metrics and /ops/*, a worker its /metrics. Without a token they stay on
  // loopback, and production wants one whatever the address (config.ts checks its strength).
  if (config.OPS_TOKEN === undefined && config.NODE_ENV === 'production') {
    throw new ConfigError(['OPS_TOKEN: required when NODE_ENV=production (it guards /metrics and /ops/*)']);
  }
  if (config.OPS_TOKEN === undefined && !isLoopbackHost(config.HOST)) {
    throw new ConfigError([
      `OPS_TOKEN: required to listen on HOST=${config.HOST}, which is not loopback: /metrics and /ops/* would be open to the network ` +
        '(set OPS_TOKEN, or leave HOST unset for 127.0.0.1)',
    ]);
  }
  if (config.DATABASE_READ_URL && !config.DATABASE_URL) {
    throw new ConfigError(['DATABASE_READ_URL: a replica needs its primary in DATABASE_URL (the embedded PGlite has none)']);
  }
  if (!config.DATABASE_URL && !(roles.api && roles.worker && (roles.webhooks ?? true))) {
    throw new Error('DATABASE_URL: required to run the roles in processes of their own (embedded PGlite serves one process)');
  }
  if (roles.webhooks && !roles.worker && config.WEBHOOK_CONCURRENCY === 0) {
    throw new ConfigError(['WEBHOOK_CONCURRENCY: 0 leaves a webhooks process nothing to do; give it 1 or more']);
  }
  // Stopped in this order whatever the order of start-up: no new requests, then no new jobs
  // (running ones finish or go back to the queue), then producers and listeners, then the
  // database, then Redis connections, and a private Redis last.
  const steps: StopStep[] = [];
  const onStop = (step: StopStep) => steps.push(step);
  // HTTP waits for requests still waiting on their commands; workers for their running jobs.
  const STEP_DEADLINE_MS: Record<string, number> = {
    http: config.COMMAND_WAIT_MS + 5_000,
    workers: config.SHUTDOWN_DEADLINE_MS + 5_000,
  };
  const stop = async () => {
    const ordered = steps.splice(0).sort((a, b) => STOP_PHASES.indexOf(a.phase) - STOP_PHASES.indexOf(b.phase));
    for (const step of ordered) {
      const started = performance.now();
      const ms = () => Math.round(performance.now() - started);
      try {
        // A step waiting on an unreachable Redis or Postgres must not hold the process hostage.
        await withDeadline(step.close(), STEP_DEADLINE_MS[step.name] ?? 5_000);
        log.info({ step: step.name, ms: ms() }, 'stopped step');
      } catch (err) {
        log.warn({ err, step: step.name, ms: ms() }, 'shutdown step failed');
      }
    }
  };
  try {
    if (tracingWanted() && !tracingActive()) {
      // Before any request or job is served: the hooks read whether it is on.
      const stopTracing = await startTracing();
      onStop({ phase: 'private redis', name: 'tracing', close: stopTracing });
      log.info('traces exported over OTLP (OTEL_EXPORTER_OTLP_ENDPOINT)');
    }
    const secretBox = secretBoxFor(config);
    const database = await openMigratedDatabase(config, hooks);
    onStop({ phase: 'database', name: 'database', close: () => database.close() });
    log.info({ database: database.kind }, 'database ready');
    if (database.embedded && !pgliteDir(config).startsWith('memory://')) {
      // The CLI reaches the embedded database through the service while it runs (PGlite is one process's).
      const socket = await serveEmbeddedDatabase(database.embedded.thread, pgliteDir(config));
      database.embedded.thread.onRestart((why) => log.warn({ reason: why.reason }, 'embedded database restarted'));
      onStop({ phase: 'queues', name: 'embedded database socket', close: () => socket.close() });
    }
    let readDatabase = database;
    if (config.DATABASE_READ_URL && roles.api) {
      // Only the API reads from the replica; its schema is the primary's (no migration there).
      const replica = await openDatabase({ databaseUrl: config.DATABASE_READ_URL, ...poolOptions(config), applicationName: 'fulfil read' });
      onStop({ phase: 'database', name: 'read database', close: () => replica.close() });
      readDatabase = replica;
      log.info('reads of the inventory index and event feed go to DATABASE_READ_URL');
    }

    const redis = await resolveRedis({ redisUrl: config.REDIS_URL, dataDir: config.DATA_DIR, probeLocal: !config.REDIS_PRIVATE });
    if (redis.private) onStop({ phase: 'private redis', name: 'private redis', close: () => redis.private!.stop() });
    log.info({ redis: redisUrlForLog(redis.url), source: redis.source }, 'redis resolved');

    const connections: RedisConnection[] = [];
    onStop({
      phase: 'redis',
      name: 'redis connections',
      close: () => Promise.all(connections.map((c) => (c.status === 'ready' ? c.quit().catch(() => c.disconnect()) : c.disconnect()))),
    });
    const track = (c: RedisConnection) => {
      connections.push(c);
      watchConnection(c, log);
      return c;
    };
    const blocking = () => track(blockingConnection(redis.url));
    const prefix = config.QUEUE_PREFIX;
    const service: Service = { config, log, database, readDatabase, redis, secretBox, stop };

    const workerProducer = memoised(async () => {
      const producer = track(producerConnection(redis.url));
      // A BullMQ queue made on a fail-fast connection that is not ready yet can fail its set-up
      // for good (a cluster client between 'connect' and 'ready' refuses commands): as the API
      // does. And nothing that retries forever starts before Redis answered: an unreachable one
      // ends the start.
      await waitReady(producer, redis.url, config.STARTUP_TIMEOUT_MS);
      return producer;
    });
    const ctx: RoleContext = {
      config,
      roles,
      ops,
      log,
      database,
      readDatabase,
      redis,
      secretBox,
      prefix,
      inboxes: new LocalInboxes(),
      webhookResolve: opts.webhookResolve ?? systemResolve,
      onStop,
      track,
      blocking,
      workerProducer,
      webhookQueue: memoised(async () => {
        const queue = new WebhookQueue({ prefix, connection: await workerProducer() });
        onStop({ phase: 'queues', name: 'webhook queue', close: () => queue.close() });
        return queue;
      }),
    };
    if (roles.worker) await startWorkerRole(ctx);
    if (roles.webhooks ?? roles.worker) await startWebhooksRole(ctx);
    if (!roles.api) service.metricsUrl = await startWorkerMetrics(ctx);

    if (roles.api) {
      const started = await startApiRole(ctx);
      service.app = started.app;
      service.url = started.url;
      // Left last, once it answers; taken away first at stop.
      const takeAway = leaveServiceAddress(config.DATA_DIR, started.url, serviceQueuesAddress(ctx));
      onStop({ phase: 'http', name: 'service address', close: async () => takeAway() });
    }
    return service;
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The first call's promise, for every call: one connection however many roles ask for it. */
function memoised<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}
