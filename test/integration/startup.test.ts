import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_REDIS_MESSAGE, NoRedisError, resolveRedis } from '../../src/redis/resolve.ts';
import { isProcessAlive } from '../../src/process-alive.ts';
import { runCli } from '../support/cli.ts';
import { startBuiltService as startCli, stopBuiltService as stopCli } from '../support/built-service.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';

describe('start-up with embedded defaults', () => {
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(path.join(tmpdir(), 'fulfil-start-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('runs on PGlite with no DATABASE_URL and no REDIS_URL, keeps data across a restart, stops cleanly', async () => {
    const dataDir = tmp();
    // The local Redis is shared: its own prefix keeps this service off everyone else's jobs.
    const prefix = testPrefix();
    const env = { DATA_DIR: dataDir, QUEUE_PREFIX: prefix };
    try {
      const first = await startCli(env);
      expect((await fetch(`${first.url}/livez`)).status).toBe(200);
      const ready = await fetch(`${first.url}/readyz`);
      expect(await ready.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
      // A second process never opens the embedded database under the running service: it
      // borrows it through the service's socket.
      const embedded = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: undefined };
      const borrowed = await runCli(['seed', 'fixtures/demo.json'], embedded);
      expect(borrowed.text).toMatch(/^seeded fixtures\/demo.json: /);
      expect(borrowed.code).toBe(0);
      expect(existsSync(path.join(dataDir, 'pglite.socket.json'))).toBe(true);
      // The address the CLI of this DATA_DIR calls (D-134), there while the service runs.
      expect(existsSync(path.join(dataDir, 'service.json'))).toBe(true);
      expect(await stopCli(first.child)).toBe(0);
      expect(first.output()).toContain('"database":"pglite"');
      const stopped = first
        .output()
        .split('\n')
        .filter((l) => l.includes('"msg":"stopped step"'))
        .map((l) => JSON.parse(l).step);
      expect(stopped).toEqual([
        'http',
        'service address',
        'workers',
        'outbox relay',
        'shard layouts',
        'housekeeping',
        'webhook worker',
        'embedded database socket',
        'webhook queue',
        'queues',
        'credential cache',
        'rate limiter',
        'database',
        'redis connections',
      ]);
      // Stopped, the service no longer announces a socket: the CLI opens the database itself.
      expect(existsSync(path.join(dataDir, 'pglite.socket.json'))).toBe(false);
      expect(existsSync(path.join(dataDir, 'service.json'))).toBe(false);
      expect(first.output()).toContain('"msg":"stopped"');

      // A credential created between runs must still be there after the restart.
      expect((await runCli(['seed', 'fixtures/demo.json'], embedded)).code).toBe(0);
      const created = await runCli(['credentials', 'create', '--brokerage', '1'], embedded);
      expect(created.code).toBe(0);
      const token = created.text.match(/token:\s+(\w{32})/)![1]!;

      const second = await startCli(env);
      expect((await fetch(`${second.url}/livez`)).status).toBe(200);
      expect(second.output()).not.toContain('seeded');
      expect(await stopCli(second.child)).toBe(0);
      const listed = await runCli(['credentials', 'list'], embedded);
      expect(listed.code).toBe(0);
      expect(listed.text).toContain(token);
      expect(listed.text).not.toMatch(/secret/i);
    } finally {
      await dropPrefix(prefix);
    }
  }, 120_000);

  it('starts a private redis-server with AOF when nothing answers, and stops it', async () => {
    const dataDir = tmp();
    const resolved = await resolveRedis({ dataDir, probeLocal: false });
    expect(resolved.source).toBe('private');
    const pid = resolved.private!.pid;
    const client = new Redis(resolved.url);
    expect(await client.ping()).toBe('PONG');
    expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
    expect(await client.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    client.disconnect();
    expect(existsSync(path.join(dataDir, 'redis'))).toBe(true);
    await resolved.private!.stop();
    expect(isProcessAlive(pid)).toBe(false);
  });

  it('prefers REDIS_URL, then a Redis on 127.0.0.1:6379', async () => {
    expect(await resolveRedis({ redisUrl: 'redis://example.invalid:1', dataDir: tmp() })).toEqual({
      url: 'redis://example.invalid:1',
      source: 'REDIS_URL',
    });
    expect((await resolveRedis({ dataDir: tmp() })).source).toBe('local');
  });

  it('says how to get Redis when there is none and no redis-server to start', async () => {
    await expect(resolveRedis({ dataDir: tmp(), probeLocal: false, binary: undefined })).rejects.toBeInstanceOf(NoRedisError);
    expect(NO_REDIS_MESSAGE).toMatch(/REDIS_URL/);
    expect(NO_REDIS_MESSAGE).toMatch(/apt-get install redis-server/);
  });

  it('refuses a bad variable at start with a message naming it', async () => {
    const refused = await runCli(['start'], { PORT: 'not-a-port' });
    expect(refused.code).toBe(1);
    expect(refused.text).toMatch(/PORT: .*"not-a-port"/);
  });
});
