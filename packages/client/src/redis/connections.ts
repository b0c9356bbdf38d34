import { Redis, type RedisOptions } from 'ioredis';

/**
 * Workers and QueueEvents block on Redis, so they must retry forever (BullMQ requires
 * maxRetriesPerRequest null). Producers fail fast instead, so an HTTP call answers 503 at once
 * rather than queueing the command in memory while Redis is away.
 */
export function blockingConnection(url: string, extra: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, ...extra });
}

export function producerConnection(url: string, extra: RedisOptions = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2_000,
    ...extra,
  });
}
