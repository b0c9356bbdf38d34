import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { RateLimiter } from './auth/rate-limit.ts';
import { SecretBox, loadSecretKey } from './auth/secret-box.ts';
import { CommandDispatcher } from './queues/dispatcher.ts';
import { ConfigError, type Config } from './config.ts';
import { withDeadline } from './deadline.ts';
import { openDatabase, type Database } from './db/client.ts';
import { migrateDatabase } from './db/migrate.ts';
import { ActiveRelay } from './events/relay-leadership.ts';
import { buildApp } from './http/app.ts';
import { createLogger, type Logger } from './logger.ts';
import { CommandQueues } from './queues/command-queues.ts';
import { Queue } from 'bullmq';
import { startHousekeeping } from '../workers/housekeeping.ts';
import { HttpMetrics } from './ops/metrics.ts';
import { startMetricsServer } from './ops/metrics-server.ts';
import { loadOpsConfig, type OpsConfig } from './ops/ops-config.ts';
import { serveEmbeddedDatabase } from './db/pglite-socket.ts';
import { COMMAND_QUEUES, EVENTS_QUEUE } from './queues/job-map.ts';
import { CommandWaiters } from './queues/waiters.ts';
import { startWorkers, type WorkerPool } from '../workers/pool.ts';
import { blockingConnection, producerConnection, type RedisConnection } from './redis/connections.ts';
import { redisUrlForLog } from './redis/redis-url.ts';
import { resolveRedis, type ResolvedRedis } from './redis/resolve.ts';
import { registry } from '../workers/index.ts';

export interface Roles {
  api: boolean;
  worker: boolean;
}

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

export function pgliteDir(config: Config): string {
  return path.join(config.DATA_DIR, 'pglite');
}

/** Opens the database the configuration names (PGlite under DATA_DIR when none) and migrates it. */
export async function openMigratedDatabase(config: Config, opts: { onStatement?: (text: string) => void } = {}): Promise<Database> {
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, pgliteDir: pgliteDir(config), ...poolOptions(config), ...opts });
  try {
    await migrateDatabase(database, config.DATABASE_URL);
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}

/** Pool size and server-side limits of a process's Postgres connections (docs/SCALING.md). */
export function poolOptions(config: Config) {
  return {
    maxConnections: config.DATABASE_POOL_SIZE,
    timeouts: {
      connectMs: config.DATABASE_CONNECT_TIMEOUT_MS,
      statementMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
      idleInTransactionMs: config.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      idleMs: config.DATABASE_IDLE_TIMEOUT_MS,
    },
  };
}

export function secretBoxFor(config: Config): SecretBox {
  return SecretBox.fromKey(
    loadSecretKey({ configured: config.FULFIL_SECRET_KEY, dataDir: config.DATA_DIR, production: config.NODE_ENV === 'production' }),
  );
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
  } = {},
): Promise<Service> {
  const ops = opts.ops ?? loadOpsConfig();
  const hooks = { ...(opts.onStatement ? { onStatement: opts.onStatement } : {}) };
  // Open operator pages in production would show job payloads and failure reasons to anyone who
  // can reach the port. Only the API serves them, so only it needs the token (CLI and workers don't).
  if (roles.api && config.NODE_ENV === 'production' && config.OPS_TOKEN === undefined) {
    throw new ConfigError(['OPS_TOKEN: required when NODE_ENV=production to run the API (it guards /metrics and /ops/queues)']);
  }
  if (config.DATABASE_READ_URL && !config.DATABASE_URL) {
    throw new ConfigError(['DATABASE_READ_URL: a replica needs its primary in DATABASE_URL (the embedded PGlite has none)']);
  }
  if (!config.DATABASE_URL && !(roles.api && roles.worker)) {
    throw new Error('DATABASE_URL: required to run --role api or --role worker alone (embedded PGlite serves one process)');
  }
  // Stopped in this order whatever the order of start-up: no new requests, then no new jobs
  // (running ones finish or go back to the queue), then producers and listeners, then the
  // database, then Redis connections, and a private Redis last.
  const PHASES = ['http', 'workers', 'queues', 'database', 'redis', 'private redis'] as const;
  const steps: Array<{ phase: (typeof PHASES)[number]; name: string; close: () => Promise<unknown> }> = [];
  const onStop = (step: (typeof steps)[number]) => steps.push(step);
  // HTTP waits for requests still waiting on their commands; workers for their running jobs.
  const STEP_DEADLINE_MS: Record<string, number> = {
    http: config.COMMAND_WAIT_MS + 5_000,
    workers: config.SHUTDOWN_DEADLINE_MS + 5_000,
  };
  const stop = async () => {
    const ordered = steps.splice(0).sort((a, b) => PHASES.indexOf(a.phase) - PHASES.indexOf(b.phase));
    for (const step of ordered) {
      try {
        // A step waiting on an unreachable Redis or Postgres must not hold the process hostage.
        await withDeadline(step.close(), STEP_DEADLINE_MS[step.name] ?? 5_000);
        log.info({ step: step.name }, 'stopped step');
      } catch (err) {
        log.warn({ err, step: step.name }, 'shutdown step failed');
      }
    }
  };
  try {
    const secretBox = secretBoxFor(config);
    const database = await openMigratedDatabase(config, hooks);
    onStop({ phase: 'database', name: 'database', close: () => database.close() });
    log.info({ database: database.kind }, 'database ready');
    if (database.pglite && !pgliteDir(config).startsWith('memory://')) {
      // The CLI reaches the embedded database through the service while it runs (PGlite is one process's).
      const socket = await serveEmbeddedDatabase(database.pglite, pgliteDir(config));
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

    const redis = await resolveRedis({ redisUrl: config.REDIS_URL, dataDir: config.DATA_DIR });
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

    if (roles.worker) {
      const pool: WorkerPool = startWorkers({
        database,
        registry: registry(),
        prefix,
        connection: blocking,
        concurrency: config.WORKER_CONCURRENCY,
        log,
      });
      onStop({ phase: 'workers', name: 'workers', close: () => pool.close(config.SHUTDOWN_DEADLINE_MS) });
      const workerProducer = track(producerConnection(redis.url));
      // A BullMQ queue made on a fail-fast connection that is not ready yet can fail its set-up
      // for good (a cluster client between 'connect' and 'ready' refuses commands): as the API does.
      await waitReady(workerProducer);
      // One process of the deployment relays at a time; the others stand by (relay-leadership.ts).
      const relay = new ActiveRelay({
        database,
        databaseUrl: config.DATABASE_URL,
        connection: workerProducer,
        prefix,
        log,
        batchSize: config.RELAY_BATCH_SIZE,
        intervalMs: config.RELAY_INTERVAL_MS,
        checkMs: config.RELAY_LEADER_CHECK_MS,
      });
      await relay.start();
      onStop({ phase: 'workers', name: 'outbox relay', close: () => relay.stop() });
      const requeue = new CommandQueues({
        prefix,
        connection: workerProducer,
        attempts: config.JOB_ATTEMPTS,
        backoffMs: config.JOB_BACKOFF_MS,
      });
      // Recovery and retention run once per period for the deployment, not per process.
      const housekeeping = startHousekeeping({
        database,
        prefix,
        producer: workerProducer,
        connection: blocking,
        queues: requeue,
        log,
        recoveryEveryMs: config.RECOVERY_EVERY_MS,
        recoveryAfterMs: config.RECOVERY_AFTER_MS,
        retentionHours: config.COMMAND_RETENTION_HOURS,
      });
      onStop({
        phase: 'workers',
        name: 'housekeeping',
        close: async () => {
          await housekeeping.close();
          await requeue.close();
        },
      });
      if (!roles.api) {
        const metrics = await startMetricsServer({
          port: ops.METRICS_PORT,
          host: config.HOST,
          opsToken: config.OPS_TOKEN,
          db: database.db,
          connection: workerProducer,
          prefix,
          log,
        });
        onStop({ phase: 'http', name: 'metrics server', close: () => metrics.close() });
        service.metricsUrl = metrics.url;
      }
    }

    if (roles.api) {
      const producer = track(producerConnection(redis.url));
      await waitReady(producer);
      const queues = new CommandQueues({ prefix, connection: producer, attempts: config.JOB_ATTEMPTS, backoffMs: config.JOB_BACKOFF_MS });
      const waiters = new CommandWaiters(COMMAND_QUEUES, {
        prefix,
        connection: blocking,
        onError: (err) => log.warn({ err: err.message }, 'queue events error'),
      });
      const eventsQueue = new Queue(EVENTS_QUEUE, { prefix, connection: producer });
      onStop({
        phase: 'queues',
        name: 'queues',
        close: async () => {
          await waiters.close();
          await queues.close();
          await eventsQueue.close();
        },
      });
      await waiters.ready();
      const dispatcher = new CommandDispatcher({ database, queues, waiters, waitMs: config.COMMAND_WAIT_MS });
      const app = await buildApp({
        config,
        database,
        readDatabase,
        log,
        dispatcher,
        secretBox,
        ops: { queues: [...queues.queues.values(), eventsQueue], metrics: new HttpMetrics(), write: ops.OPS_WRITE },
        rateLimiter: new RateLimiter(producer, prefix, {
          perCredential: config.RATE_LIMIT_PER_MINUTE,
          authFailuresPerAddress: config.AUTH_FAILURES_PER_MINUTE,
        }),
        readiness: [
          { name: 'postgres', check: async () => void (await database.db.execute(sql`select 1`)) },
          { name: 'redis', check: async () => void (await producer.ping()) },
        ],
      });
      onStop({ phase: 'http', name: 'http', close: () => app.close() });
      service.url = await app.listen({ port: config.PORT, host: config.HOST });
      service.app = app;
    }
    return service;
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Logs a Redis connection's trouble once per outage instead of once per reconnect attempt. */
function watchConnection(conn: RedisConnection, log: Logger): void {
  let down = false;
  conn.on('error', (err) => {
    if (!down) log.warn({ err: err.message }, 'redis connection error; reconnecting');
    down = true;
  });
  conn.on('ready', () => {
    if (down) log.info('redis connection back');
    down = false;
  });
}

function waitReady(conn: RedisConnection): Promise<void> {
  if (conn.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('Redis did not become ready in 10 s')), 10_000);
    conn.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
