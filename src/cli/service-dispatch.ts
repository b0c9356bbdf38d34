import { commandShardPlaces } from '@fulfil/contract';
import { blockingConnection, CommandQueues, CommandWaiters, producerConnection, type RedisConnection } from '@fulfil/client/transport';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { CommandDispatcher } from '../queues/dispatcher.ts';
import { openCliDatabase } from './database.ts';
import { requireWorkers, serviceQueues } from './service-queues.ts';

/**
 * Runs `fn` with a dispatcher onto the running service's command queues (an operator's command,
 * run by its workers as every command is): the service first (D-160), so a command for nobody
 * is refused before anything is written. `source` names where the queues were found.
 */
export async function withServiceDispatcher<T>(
  config: Config,
  opts: { base: string | undefined; waitMs: number; onError: (message: string) => void },
  fn: (deps: { database: Database; dispatcher: CommandDispatcher; source: string }) => Promise<T>,
): Promise<T> {
  const closers: Array<() => Promise<unknown>> = [];
  try {
    const redis = await serviceQueues(config, opts.base);
    const places = commandShardPlaces(redis.prefix, redis.shards);
    await requireWorkers(redis, places);
    const { database } = await openCliDatabase(config);
    closers.push(() => database.close());
    const connections: RedisConnection[] = [];
    closers.push(async () => connections.forEach((c) => c.disconnect()));
    const connect = (make: () => RedisConnection) => {
      const c = make();
      connections.push(c);
      return c;
    };
    const queues = new CommandQueues({
      prefix: redis.prefix,
      connection: connect(() => producerConnection(redis.url, { enableOfflineQueue: true })),
      shards: redis.shards,
    });
    const waiters = new CommandWaiters(places, { connection: () => connect(() => blockingConnection(redis.url)) });
    closers.push(async () => {
      await waiters.close();
      await queues.close();
    });
    await waiters.ready();
    const log = { error: (_detail: object, message: string) => opts.onError(message) };
    const dispatcher = new CommandDispatcher({ database, queues, waiters, waitMs: opts.waitMs, log });
    return await fn({ database, dispatcher, source: redis.source });
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
  }
}
