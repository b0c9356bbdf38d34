import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { TEST_REDIS_URL } from './env.ts';

/** A BullMQ prefix of one test file, so files sharing the Redis never see each other's jobs. */
export function testPrefix(): string {
  return `t${process.pid}${randomBytes(4).toString('hex')}`;
}

/** Deletes every key under the prefix (the file's queues, jobs and events). */
export async function dropPrefix(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    // `<prefix>.c3-1:…` and the like are the shard queues of COMMAND_SHARDS > 1 (queues/placement.ts).
    for (const pattern of [`${prefix}:*`, `${prefix}.*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        if (keys.length) await redis.del(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}
