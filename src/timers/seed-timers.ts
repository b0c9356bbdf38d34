import { producerConnection } from '@fulfil/client/transport';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { resolveRedis } from '../redis/resolve.ts';
import { TimerQueue } from './deadline-timers.ts';
import { armOrderTimers } from './timer-worker.ts';

const ARM_PATIENCE_MS = 10_000;

/**
 * Arms the timers of orders a seed or a fixture import just wrote, on the Redis the service's
 * workers read (REDIS_URL, else the running private Redis of DATA_DIR, else 127.0.0.1:6379; never
 * a new private one, which no worker would read), so their due events come on time rather than at
 * the next sweep (D-133). Answers a line for the operator; when no Redis answers, the line says
 * the service's sweep arms them when it runs (within a minute of its start, or of its next period).
 */
export async function armSeededTimers(
  config: Pick<Config, 'REDIS_URL' | 'DATA_DIR' | 'QUEUE_PREFIX'>,
  database: Database,
  orderIds: readonly number[],
): Promise<string> {
  if (orderIds.length === 0) return 'no new orders: no timers to arm';
  let redis;
  try {
    redis = await resolveRedis({ redisUrl: config.REDIS_URL, dataDir: config.DATA_DIR, binary: undefined });
  } catch {
    return "no Redis answers: the new orders' timers are armed by the service's timer sweep when it runs";
  }
  const connection = producerConnection(redis.url, { enableOfflineQueue: true });
  const queue = new TimerQueue({ prefix: config.QUEUE_PREFIX, connection });
  let timer: NodeJS.Timeout | undefined;
  try {
    const armed = await Promise.race([
      armOrderTimers(database, queue, orderIds),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`Redis at ${redis.source} did not answer in ${ARM_PATIENCE_MS / 1000} s`)),
          ARM_PATIENCE_MS,
        );
      }),
    ]);
    return `armed ${armed} deadline timer${armed === 1 ? '' : 's'} of ${orderIds.length} new order${orderIds.length === 1 ? '' : 's'}`;
  } catch (err) {
    return `could not arm the new orders' timers (${(err as Error).message}): the service's timer sweep arms them when it runs`;
  } finally {
    clearTimeout(timer);
    await queue.close().catch(() => undefined);
    connection.disconnect();
  }
}
