import { Cluster, type Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { EndingRedis, type LegacyRedisOptions } from './ending-redis.ts';
import { parseRedisUrl } from './redis-url.ts';

/** One Redis or a Redis Cluster: BullMQ and every caller here use only what both offer. */
export type RedisConnection = Redis | Cluster;

/**
 * Workers and QueueEvents block on Redis, so they must retry forever (BullMQ requires
 * maxRetriesPerRequest null). Producers fail fast instead, so an HTTP call answers 503 at once
 * rather than queueing the command in memory while Redis is away.
 */
export function blockingConnection(url: string, extra: RedisOptions = {}): RedisConnection {
  return connect(url, { maxRetriesPerRequest: null, enableReadyCheck: true, ...extra });
}

export function producerConnection(url: string, extra: RedisOptions = {}): RedisConnection {
  return connect(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2_000,
    ...extra,
  });
}

/** A new connection like `c` but for blocking use (QueueEvents), not connected until used. */
export function blockingDuplicate(c: RedisConnection): RedisConnection {
  if (c instanceof Cluster) {
    return c.duplicate(undefined, {
      enableOfflineQueue: true,
      lazyConnect: true,
      redisOptions: { ...c.options.redisOptions, maxRetriesPerRequest: null },
    });
  }
  return c.duplicate({ maxRetriesPerRequest: null, enableOfflineQueue: true, lazyConnect: true });
}

function connect(url: string, options: RedisOptions): RedisConnection {
  const target = parseRedisUrl(url);
  if (target.kind === 'single') return new EndingRedis(url, options as LegacyRedisOptions);
  const { enableOfflineQueue, lazyConnect, enableReadyCheck, ...perNode } = options;
  const clusterOptions: ClusterOptions = {
    ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
    ...(lazyConnect !== undefined ? { lazyConnect } : {}),
    ...(enableReadyCheck !== undefined ? { enableReadyCheck } : {}),
    redisOptions: {
      ...perNode,
      ...(target.username ? { username: target.username } : {}),
      ...(target.password ? { password: target.password } : {}),
      ...(target.tls ? { tls: {} } : {}),
    },
    // A failed slot lookup or a node moving is retried, not turned into a command error at once.
    slotsRefreshTimeout: 2_000,
  };
  return new Cluster(target.nodes, clusterOptions);
}
