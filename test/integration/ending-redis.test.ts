import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRestartableRedis, type RestartableRedis } from '../../chaos/restartable-redis.ts';
import { blockingConnection } from '@fulfil/client/transport';

/**
 * A connection told to disconnect while it waits to reconnect to a Redis that went away ends:
 * the `end` event comes and the commands queued on it are rejected. Plain ioredis leaves such a
 * connection `reconnecting` for good, and BullMQ's Worker.close() waited on it forever.
 */
describe('a connection disconnected between reconnect attempts', () => {
  let dir: string;
  let redis: RestartableRedis;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'fulfil-ending-redis-'));
    redis = await startRestartableRedis(dir);
  }, 30_000);
  afterAll(async () => {
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ends, and rejects what was queued on it; so does its duplicate (what BullMQ blocks on)', async () => {
    // A single node's connection (the URL names no cluster), as the worker's are.
    const conn = blockingConnection(redis.url) as Redis;
    const dup = conn.duplicate();
    for (const c of [conn, dup]) c.on('error', () => {});
    await Promise.all([conn.ping(), dup.ping()]);
    await redis.kill();
    const outcomes = await Promise.all(
      [conn, dup].map(async (c) => {
        while (c.status !== 'reconnecting') await new Promise((r) => setTimeout(r, 10));
        const queued = c.bzpopmin('nothing', 5).then(
          () => 'answered',
          (err: Error) => err.message,
        );
        const ended = new Promise<string>((r) => c.once('end', () => r('end')));
        c.disconnect();
        return { ended: await ended, status: c.status, queued: await queued };
      }),
    );
    const expected = { ended: 'end', status: 'end', queued: 'Connection is closed.' };
    expect(outcomes).toEqual([expected, expected]);
    await redis.start();
  }, 30_000);
});

/**
 * Commands issued in one turn of the event loop leave in one write on the socket, answered in
 * order; so after a reconnect (a new socket). Counted at the socket's own write hooks: without
 * the coalescing, each command is a write of its own.
 */
describe('commands of one event-loop turn', () => {
  let dir: string;
  let redis: RestartableRedis;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'fulfil-turn-writes-'));
    redis = await startRestartableRedis(dir);
  }, 30_000);
  afterAll(async () => {
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const countWrites = (conn: Redis) => {
    const socket = conn.stream as unknown as { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void };
    const seen = { writes: 0 };
    for (const hook of ['_write', '_writev'] as const) {
      const original = socket[hook].bind(socket);
      socket[hook] = (...a: unknown[]) => {
        seen.writes++;
        return original(...a);
      };
    }
    return seen;
  };

  const burst = async (conn: Redis, tag: string) => {
    const sets = Array.from({ length: 40 }, (_, i) => conn.set(`${tag}-${i}`, String(i)));
    const gets = Array.from({ length: 40 }, (_, i) => conn.get(`${tag}-${i}`));
    await Promise.all(sets);
    return Promise.all(gets);
  };

  it('leave in one write, in order, before and after a reconnect', async () => {
    const conn = blockingConnection(redis.url) as Redis;
    conn.on('error', () => {});
    try {
      await conn.ping();
      let seen = countWrites(conn);
      expect(await burst(conn, 'a')).toEqual(Array.from({ length: 40 }, (_, i) => String(i)));
      expect(seen.writes).toBe(1);

      const reconnected = new Promise((r) => conn.once('ready', r));
      conn.disconnect(true);
      await reconnected;
      seen = countWrites(conn);
      expect(await burst(conn, 'b')).toEqual(Array.from({ length: 40 }, (_, i) => String(i)));
      expect(seen.writes).toBe(1);
    } finally {
      conn.disconnect();
    }
  });
});
