import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimiter } from './auth/rate-limit.ts';
import { SecretBox, loadSecretKey } from './auth/secret-box.ts';
import { CommandDispatcher } from './commands/dispatcher.ts';
import { ConfigError, type Config } from './config.ts';
import { withDeadline } from './deadline.ts';
import { openDatabase, type Database } from './db/client.ts';
import { migrateDatabase } from './db/migrate.ts';
import { OutboxRelay } from './events/outbox-relay.ts';
import { buildApp } from './http/app.ts';
import { createLogger, type Logger } from './logger.ts';
import { CommandQueues } from './queues/command-queues.ts';
import { Queue } from 'bullmq';
import { logRecovery, recoverLostCommands } from './commands/recover-lost.ts';
import { startCommandRetention } from './ops/command-retention.ts';
import { startPeriodic } from './periodic.ts';
import { HttpMetrics } from './ops/http-metrics.ts';
import { COMMAND_QUEUES, EVENTS_QUEUE } from './queues/job-map.ts';
import { CommandWaiters } from './queues/waiters.ts';
import { startWorkers, type WorkerPool } from './queues/worker-pool.ts';
import { blockingConnection, producerConnection } from './redis/connections.ts';
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
  redis: ResolvedRedis;
  secretBox: SecretBox;
  app?: FastifyInstance;
  /** Base URL of the HTTP ingress when the api role runs. */
  url?: string;
  stop(): Promise<void>;
}

export function pgliteDir(config: Config): string {
  return path.join(config.DATA_DIR, 'pglite');
}

/** Opens the database the configuration names (PGlite under DATA_DIR when none) and migrates it. */
export async function openMigratedDatabase(config: Config): Promise<Database> {
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    pgliteDir: pgliteDir(config),
    maxConnections: config.DB_POOL_MAX,
    timeouts: {
      connectMs: config.DB_CONNECT_TIMEOUT_MS,
      statementMs: config.DB_STATEMENT_TIMEOUT_MS,
      idleInTransactionMs: config.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      idleMs: config.DB_IDLE_TIMEOUT_MS,
    },
  });
  try {
    await migrateDatabase(database, config.DATABASE_URL);
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
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
export async function startService(config: Config, roles: Roles, log = createLogger(config.LOG_LEVEL)): Promise<Service> {
  // Open operator pages in production would show job payloads and failure reasons to anyone who
  // can reach the port. Only the API serves them, so only it needs the token (CLI and workers don't).
  if (roles.api && config.NODE_ENV === 'production' && config.OPS_TOKEN === undefined) {
    throw new ConfigError(['OPS_TOKEN: required when NODE_ENV=production to run the API (it guards /metrics and /ops/queues)']);
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
    const database = await openMigratedDatabase(config);
    onStop({ phase: 'database', name: 'database', close: () => database.close() });
    log.info({ database: database.kind }, 'database ready');

    const redis = await resolveRedis({ redisUrl: config.REDIS_URL, dataDir: config.DATA_DIR });
    if (redis.private) onStop({ phase: 'private redis', name: 'private redis', close: () => redis.private!.stop() });
    log.info({ redis: redis.url, source: redis.source }, 'redis resolved');

    const connections: Redis[] = [];
    onStop({
      phase: 'redis',
      name: 'redis connections',
      close: () => Promise.all(connections.map((c) => (c.status === 'ready' ? c.quit().catch(() => c.disconnect()) : c.disconnect()))),
    });
    const track = (c: Redis) => {
      connections.push(c);
      watchConnection(c, log);
      return c;
    };
    const blocking = () => track(blockingConnection(redis.url));
    const prefix = config.QUEUE_PREFIX;
    const service: Service = { config, log, database, redis, secretBox, stop };

    if (roles.worker) {
      const pool: WorkerPool = startWorkers({
        database, registry: registry(), prefix, connection: blocking, concurrency: config.WORKER_CONCURRENCY, log,
      });
      onStop({ phase: 'workers', name: 'workers', close: () => pool.close(config.SHUTDOWN_DEADLINE_MS) });
      const workerProducer = track(producerConnection(redis.url));
      const relay = new OutboxRelay({
        database, connection: workerProducer, prefix, log,
        batchSize: config.RELAY_BATCH_SIZE, intervalMs: config.RELAY_INTERVAL_MS,
      });
      relay.start();
      onStop({ phase: 'workers', name: 'outbox relay', close: () => relay.stop() });
      const retention = startCommandRetention({ database, retentionHours: config.COMMAND_RETENTION_HOURS, log });
      onStop({ phase: 'workers', name: 'command retention', close: () => retention.stop() });
      const requeue = new CommandQueues({ prefix, connection: workerProducer, attempts: config.JOB_ATTEMPTS, backoffMs: config.JOB_BACKOFF_MS });
      const recovery = startPeriodic({
        name: 'recovering lost commands',
        everyMs: config.RECOVERY_EVERY_MS,
        log,
        run: async () => logRecovery(log, await recoverLostCommands({ database, queues: requeue, olderThanMs: config.RECOVERY_AFTER_MS })),
      });
      onStop({ phase: 'workers', name: 'lost-command recovery', close: async () => { await recovery.stop(); await requeue.close(); } });
    }

    if (roles.api) {
      const producer = track(producerConnection(redis.url));
      await waitReady(producer);
      const queues = new CommandQueues({ prefix, connection: producer, attempts: config.JOB_ATTEMPTS, backoffMs: config.JOB_BACKOFF_MS });
      const waiters = new CommandWaiters(COMMAND_QUEUES, { prefix, connection: blocking, onError: (err) => log.warn({ err: err.message }, 'queue events error') });
      const eventsQueue = new Queue(EVENTS_QUEUE, { prefix, connection: producer });
      onStop({ phase: 'queues', name: 'queues', close: async () => { await waiters.close(); await queues.close(); await eventsQueue.close(); } });
      await waiters.ready();
      const dispatcher = new CommandDispatcher({ database, queues, waiters, waitMs: config.COMMAND_WAIT_MS });
      const app = await buildApp({
        config, database, log, dispatcher, secretBox,
        ops: { queues: [...queues.queues.values(), eventsQueue], metrics: new HttpMetrics() },
        rateLimiter: new RateLimiter(producer, prefix, {
          perCredential: config.RATE_LIMIT_PER_MINUTE, authFailuresPerAddress: config.AUTH_FAILURES_PER_MINUTE,
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
function watchConnection(conn: Redis, log: Logger): void {
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

function waitReady(conn: Redis): Promise<void> {
  if (conn.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('Redis did not become ready in 10 s')), 10_000);
    conn.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
