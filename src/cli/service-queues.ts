import path from 'node:path';
import { Queue } from 'bullmq';
import { blockingConnection } from '@fulfil/client/transport';
import type { QueuePlace } from '@fulfil/contract';
import type { Config } from '../config.ts';
import { redactedUrl } from '../redact-url.ts';
import { redisAnswers, DEFAULT_REDIS, runningPrivateUrl } from '../redis/resolve.ts';
import { QUEUE_ADDRESS_PATH, runningService, type ServiceQueuesAddress } from '../service/service-address.ts';
import { CliFailure, UsageError } from './command.ts';

/** The Redis and queue prefix of the service a CLI command talks to, and how they were found. */
export interface ServiceQueues {
  url: string;
  prefix: string;
  shards: number;
  /** How it was found, in words for messages: `REDIS_URL`, `DATA_DIR/service.json` or `127.0.0.1:6379`. */
  source: string;
}

/**
 * The one rule every CLI command that reads or writes the service's queues follows (D-160), as
 * `fulfil call` finds its HTTP address: REDIS_URL (with QUEUE_PREFIX) when set; else what the
 * running service of this DATA_DIR left in DATA_DIR/service.json (its Redis, private or not, its
 * prefix and shards); else the private redis-server of DATA_DIR (DATA_DIR/redis/url) of a
 * worker-only service; else a Redis on 127.0.0.1:6379. A Redis that does not answer is a failure
 * at once, with a sentence; nothing is started here (a Redis of the CLI's own has no workers).
 */
export async function serviceQueues(config: Config, base?: string): Promise<ServiceQueues> {
  if (base !== undefined) return reachable(await toldBy(config, base));
  const running = config.REDIS_URL ? undefined : runningService(config.DATA_DIR)?.queues;
  const privateUrl = config.REDIS_URL || running ? undefined : runningPrivateUrl(config.DATA_DIR);
  const shards = config.COMMAND_SHARDS ?? 1;
  const found: ServiceQueues = config.REDIS_URL
    ? { url: config.REDIS_URL, prefix: config.QUEUE_PREFIX, shards, source: 'REDIS_URL' }
    : running
      ? { url: running.redis_url, prefix: running.queue_prefix, shards: running.command_shards, source: serviceFile(config) }
      : privateUrl
        ? { url: privateUrl, prefix: config.QUEUE_PREFIX, shards, source: 'running private' }
        : {
            url: `redis://${DEFAULT_REDIS.host}:${DEFAULT_REDIS.port}`,
            prefix: config.QUEUE_PREFIX,
            shards,
            source: `${DEFAULT_REDIS.host}:${DEFAULT_REDIS.port} (no REDIS_URL, and no running service in DATA_DIR=${path.resolve(config.DATA_DIR)})`,
          };
  if (running?.database === 'postgres' && !config.DATABASE_URL) {
    throw new CliFailure(
      `the service of DATA_DIR=${path.resolve(config.DATA_DIR)} runs on Postgres: set DATABASE_URL as the service has it`,
    );
  }
  return reachable(found);
}

async function reachable(found: ServiceQueues): Promise<ServiceQueues> {
  if (!(await answers(found.url))) {
    throw new CliFailure(
      `cannot reach the service's Redis at ${redactedUrl(found.url)} (from ${found.source}): start the service (fulfil start) ` +
        'with this DATA_DIR, or set REDIS_URL and QUEUE_PREFIX as the service has them',
    );
  }
  return found;
}

/**
 * `--base <url>` (D-169): the service at that URL tells its queues to the operator
 * (GET /ops/queue_address with OPS_TOKEN), and the command goes there as through service.json.
 * Its database must be reachable too: DATABASE_URL for a Postgres one; an embedded one only from
 * its own DATA_DIR.
 */
async function toldBy(config: Config, base: string): Promise<ServiceQueues> {
  if (!URL.canParse(base)) throw new UsageError(`--base: not a URL: ${base}`);
  const origin = new URL(base).origin;
  let res: Response;
  try {
    res = await fetch(new URL(QUEUE_ADDRESS_PATH, base), {
      headers: config.OPS_TOKEN ? { authorization: `Bearer ${config.OPS_TOKEN}` } : {},
      signal: AbortSignal.timeout(5_000),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    throw new CliFailure(`cannot reach the service at ${origin} (--base): ${cause}. Nothing was sent.`);
  }
  const body = (await res.json().catch(() => undefined)) as (ServiceQueuesAddress & { errors?: Array<{ message: string }> }) | undefined;
  if (res.status === 401)
    throw new CliFailure(`the service at ${origin} (--base) wants OPS_TOKEN: set it as the service has it. Nothing was sent.`);
  if (!res.ok || !body || typeof body.redis_url !== 'string') {
    const said = body?.errors?.[0]?.message ?? `${res.status} ${res.statusText}`;
    throw new CliFailure(`the service at ${origin} (--base) did not tell its queues: ${said}. Nothing was sent.`);
  }
  if (body.database === 'postgres' && !config.DATABASE_URL) {
    throw new CliFailure(`the service at ${origin} (--base) runs on Postgres: set DATABASE_URL as the service has it`);
  }
  const local = runningService(config.DATA_DIR)?.queues;
  if (body.database === 'embedded' && (local?.redis_url !== body.redis_url || local.queue_prefix !== body.queue_prefix)) {
    throw new CliFailure(
      `the service at ${origin} (--base) runs on its embedded database, which only the CLI of its own DATA_DIR reaches: ` +
        `run this with its DATA_DIR (not ${path.resolve(config.DATA_DIR)})`,
    );
  }
  return { url: body.redis_url, prefix: body.queue_prefix, shards: body.command_shards, source: `--base ${origin}` };
}

function serviceFile(config: Config): string {
  return path.join(path.resolve(config.DATA_DIR), 'service.json');
}

/** A quick PING (half a second) for a single Redis; a cluster's seed list is left to the connection. */
async function answers(url: string): Promise<boolean> {
  if (!url.startsWith('redis://')) return true;
  const u = new URL(url);
  return redisAnswers(u.hostname, Number(u.port || 6379));
}

/**
 * Fails at once, before anything is sent, when no worker consumes any of these queues: a command
 * queued there would wait for nobody. A Redis that will not list its clients (some managed
 * ones refuse CLIENT LIST) is taken at its word, and the wait for the answer decides.
 */
export async function requireWorkers(service: ServiceQueues, places: readonly QueuePlace[]): Promise<void> {
  const connection = blockingConnection(service.url);
  const queues = places.map(({ name, prefix }) => new Queue(name, { prefix, connection }));
  try {
    const counts = await Promise.all(queues.map((q) => q.getWorkersCount().catch(() => undefined)));
    if (counts.every((c) => c === 0)) {
      throw new CliFailure(
        `no worker takes commands at ${redactedUrl(service.url)} under QUEUE_PREFIX=${service.prefix} (from ${service.source}): ` +
          'is the service running there? Nothing was sent.',
      );
    }
  } finally {
    await Promise.all(queues.map((q) => q.close().catch(() => {})));
    connection.disconnect();
  }
}
