import type { Logger } from 'pino';
import type { CommandQueues, RedisConnection } from '@fulfil/client/transport';
import { commandShardPlace, commandShardPlaces, shardCountsKey, type QueuePlace } from '@fulfil/contract';
import type { WorkerPool } from './pool.ts';

/** Job states that mean a queue still holds work. */
const PENDING = ['wait', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;

export interface ShardLayoutOptions {
  producer: RedisConnection;
  prefix: string;
  /** COMMAND_SHARDS of this process. */
  shards: number;
  /** WORKER_SHARDS: the shards of its own layout this process consumes (default all). */
  subset?: readonly number[] | undefined;
  pool: WorkerPool;
  /** Jobs at once per command shard queue. */
  concurrency: number;
  /** For reading the job counts of a layout being drained. */
  queues: CommandQueues;
  log: Logger;
  refreshMs: number;
  retireIdleMs: number;
}

export interface ShardLayouts {
  /** Every shard count whose queues this process consumes: its own, then any being drained. */
  counts(): number[];
  close(): Promise<void>;
}

/**
 * Changing COMMAND_SHARDS without losing or repeating a command (docs/SCALING.md, "Changing the
 * shard count"): every worker announces its count in the well-known hash (count → time), and
 * consumes the queues of every count found there besides its own. A count no worker announces any
 * more is drained by the workers of the others; once all its queues stayed empty for
 * `retireIdleMs` it is removed from the hash, and its queues are left after a grace period in
 * which a producer that read the hash just before still finds a consumer. Producers refuse to send
 * under a count the hash does not hold (shard-guard.ts), so nothing lands where nobody reads.
 */
export function startShardLayouts(opts: ShardLayoutOptions): ShardLayouts {
  const { producer, pool, log, shards } = opts;
  const key = shardCountsKey(opts.prefix);
  const own = (opts.subset ?? [...Array(shards).keys()]).map((i) => commandShardPlace(opts.prefix, i, shards));
  for (const place of own) pool.consume(place, opts.concurrency);
  /** Counts other than ours being consumed: when their queues were first seen empty, when they left the hash. */
  const draining = new Map<number, { idleSince?: number; retiredAt?: number }>();
  // A producer reads the hash at most every 5 s (ShardCountGuard); twice that, and at least two of our periods.
  const graceMs = Math.max(10_000, 2 * opts.refreshMs);
  let closed = false;
  let running: Promise<void> = Promise.resolve();

  const pendingIn = async (places: QueuePlace[]): Promise<number> => {
    let total = 0;
    for (const place of places) {
      const counts = await opts.queues.queueAt(place).getJobCounts(...PENDING);
      total += Object.values(counts).reduce((a, b) => a + b, 0);
    }
    return total;
  };

  const tick = async (): Promise<void> => {
    const now = Date.now();
    await producer.hset(key, String(shards), String(now));
    const announced = await producer.hgetall(key);
    for (const field of Object.keys(announced)) {
      const count = Number(field);
      if (!Number.isInteger(count) || count < 1 || count === shards) continue;
      if (!draining.has(count)) {
        draining.set(count, {});
        log.info({ shards: count, own: shards }, 'consuming the command queues of another shard count until they are drained');
      }
      for (const place of commandShardPlaces(opts.prefix, count)) pool.consume(place, opts.concurrency);
    }
    for (const [count, state] of draining) {
      const places = commandShardPlaces(opts.prefix, count);
      const inHash = Object.hasOwn(announced, String(count));
      const stillAnnounced = inHash && now - Number(announced[String(count)]) <= 3 * opts.refreshMs;
      if (stillAnnounced) {
        state.idleSince = undefined; // workers of that count run: theirs to serve, ours to help
        continue;
      }
      const pending = await pendingIn(places);
      if (pending > 0) {
        // Jobs that arrived after the count left the hash (a producer's view up to 5 s old) are
        // still run: the queues are left only once they stay empty through the grace period.
        state.idleSince = undefined;
        if (state.retiredAt !== undefined) state.retiredAt = now;
        continue;
      }
      state.idleSince ??= now;
      if (inHash && now - state.idleSince >= opts.retireIdleMs) {
        await producer.hdel(key, String(count));
        state.retiredAt = now;
        log.info({ shards: count }, 'shard count retired: no worker announces it and its queues stayed empty');
      } else if (!inHash) {
        state.retiredAt ??= now;
        if (now - state.retiredAt >= graceMs) {
          await Promise.all(places.map((p) => pool.release(p)));
          draining.delete(count);
        }
      }
    }
  };

  const loop = () => {
    if (closed) return;
    running = tick()
      .catch((err: unknown) => log.warn({ err }, 'could not check the command shard counts; trying again'))
      .finally(() => {
        if (!closed) timer = setTimeout(loop, opts.refreshMs);
      });
  };
  let timer: NodeJS.Timeout | undefined;
  loop();

  return {
    counts: () => [shards, ...draining.keys()],
    async close() {
      closed = true;
      clearTimeout(timer);
      await running;
    },
  };
}
