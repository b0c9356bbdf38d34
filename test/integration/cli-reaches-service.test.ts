import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandShardPlaces } from '@fulfil/contract';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/private-server.ts';
import { apiClient } from '../support/api.ts';
import { startEmbeddedService } from '../support/built-service.ts';
import { completedEticketOrder } from '../support/delivery-issue-flow.ts';
import { baseFixture, BUYER } from '../support/fixtures.ts';
import { testPrefix } from '../support/redis.ts';
import { startTestService, type TestService } from '../support/service.ts';

// Issue 54, finding 1 (D-160, D-161): a CLI command that changes something reaches the service
// its DATA_DIR names (DATA_DIR/service.json), whatever Redis that service runs on, and exits
// non-zero when refused, when nobody is there, or when nobody answered in time.

const BIN = path.resolve(import.meta.dirname, '../../bin/fulfil.mjs');

/** The built CLI with exactly this environment; a run past `deadlineMs` is killed (answered in seconds, or not at all). */
function cli(env: NodeJS.ProcessEnv, args: string[], deadlineMs = 20_000): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, ...env }, timeout: deadlineMs }, (error, out, err) => {
      const e = error as (Error & { code?: number; killed?: boolean }) | null;
      resolve({ code: e ? (e.killed ? -1 : (e.code ?? 1)) : 0, out, err });
    });
  });
}

type Embedded = Awaited<ReturnType<typeof startEmbeddedService>>;

/** An Eticket order completed, and a delivery issue on it opened by the buyer (escalated unless told not to). */
async function issueOn(service: Embedded, order: number, escalate = true): Promise<number> {
  const call = apiClient(service.url);
  await completedEticketOrder(call, order);
  const opened = await call(BUYER, 'POST', `/v9/orders/${order}/delivery_issues`, { reason: 'not_received' });
  expect(opened.status).toBe(201);
  if (escalate) expect((await call(BUYER, 'POST', `/v9/delivery_issues/${opened.body.id}/escalate`, {})).status).toBe(200);
  return opened.body.id as number;
}

describe('fulfil issues close with only DATA_DIR set, the service on a Redis of its own (REDIS_URL)', () => {
  let redisDir: string;
  let redis: PrivateRedis;
  let service: Embedded;
  const prefix = testPrefix();

  beforeAll(async () => {
    redisDir = mkdtempSync(path.join(tmpdir(), 'fulfil-own-redis-'));
    redis = await startPrivateRedis(redisDir);
    service = await startEmbeddedService({ prefix, seed: baseFixture([981, 982, 983]), env: { REDIS_URL: redis.url } });
  });
  afterAll(async () => {
    await service?.stop();
    await redis?.stop();
    rmSync(redisDir, { recursive: true, force: true });
  });

  it('service.json names the Redis and queue prefix of the running service', () => {
    const left = JSON.parse(readFileSync(path.join(service.env.DATA_DIR!, 'service.json'), 'utf8'));
    expect(left.queues).toEqual({ redis_url: redis.url, queue_prefix: prefix, command_shards: 1, database: 'embedded' });
  });

  it('closes an escalated issue, answered in seconds; closing it again, or a resolved one, exits non-zero', async () => {
    const only = { DATA_DIR: service.env.DATA_DIR };
    const id = await issueOn(service, 981);
    const closed = await cli(only, ['issues', 'close', String(id), '--outcome', 'no_fault']);
    expect(closed).toEqual({ code: 0, out: `issue ${id} closed: no_fault\n`, err: '' });

    const again = await cli(only, ['issues', 'close', String(id), '--outcome', 'no_fault']);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/delivery issue is closed/);

    const call = apiClient(service.url);
    const resolvedId = await issueOn(service, 982, false);
    expect((await call(BUYER, 'POST', `/v9/delivery_issues/${resolvedId}/resolve`, {})).status).toBe(200);
    const resolved = await cli(only, ['issues', 'close', String(resolvedId), '--outcome', 'seller_at_fault']);
    expect(resolved.code).toBe(1);
    expect(resolved.err).toMatch(/delivery issue is resolved/);
  });

  it('a close nobody takes up in time exits 3 with a sentence, never 0', async () => {
    const id = await issueOn(service, 983);
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const [place] = commandShardPlaces(prefix, 1);
    const queue = new Queue(place!.name, { prefix: place!.prefix, connection });
    await queue.pause(); // the workers stay connected and take nothing
    try {
      const waited = await cli({ DATA_DIR: service.env.DATA_DIR }, ['issues', 'close', String(id), '--outcome', 'no_fault', '--wait', '1']);
      expect(waited.code).toBe(3);
      expect(waited.out).toBe('');
      expect(waited.err).toMatch(new RegExp(`^fulfil issues close: issue ${id}: no answer within 1 s; the close stays queued`));
    } finally {
      await queue.resume();
      await queue.close();
      connection.disconnect();
    }
  });
});

describe('fulfil issues close with only DATA_DIR set, the service on its private Redis (no REDIS_URL)', () => {
  let service: Embedded;

  beforeAll(async () => {
    // REDIS_PRIVATE: the README's private redis-server even though a Redis answers on 6379 here.
    service = await startEmbeddedService({ prefix: testPrefix(), seed: baseFixture([984]), env: { REDIS_URL: '', REDIS_PRIVATE: 'true' } });
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('finds the private Redis through service.json (its port is in DATA_DIR/redis/url too) and closes the issue', async () => {
    const dataDir = service.env.DATA_DIR!;
    const privateUrl = readFileSync(path.join(dataDir, 'redis', 'url'), 'utf8').trim();
    expect(JSON.parse(readFileSync(path.join(dataDir, 'service.json'), 'utf8')).queues.redis_url).toBe(privateUrl);
    const id = await issueOn(service, 984);
    const closed = await cli({ DATA_DIR: dataDir }, ['issues', 'close', String(id), '--outcome', 'buyer_at_fault']);
    expect(closed).toEqual({ code: 0, out: `issue ${id} closed: buyer_at_fault\n`, err: '' });
  });
});

describe('the CLI beside a service on Postgres, given only DATA_DIR', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('refuses at once, naming DATABASE_URL, rather than write to an embedded database nobody reads', async () => {
    const only = { DATA_DIR: t.config.DATA_DIR };
    const want = `the service of DATA_DIR=${t.config.DATA_DIR} runs on Postgres: set DATABASE_URL as the service has it\n`;
    const created = await cli(only, ['credentials', 'create', '--brokerage', '1'], 10_000);
    expect([created.code, created.out, created.err]).toEqual([1, '', `fulfil credentials create: ${want}`]);
    const closed = await cli(only, ['issues', 'close', '1', '--outcome', 'no_fault'], 10_000);
    expect([closed.code, closed.err]).toEqual([1, `fulfil issues close: ${want}`]);
  });
});

describe('fulfil issues close with no service to reach', () => {
  it('fails at once with a sentence when no worker is there, and sends nothing', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-no-service-'));
    try {
      // The Redis on 6379 answers, but nothing consumes this prefix there.
      const told = await cli({ DATA_DIR: dataDir, QUEUE_PREFIX: testPrefix() }, ['issues', 'close', '1', '--outcome', 'no_fault'], 10_000);
      expect(told.code).toBe(1);
      expect(told.out).toBe('');
      expect(told.err).toMatch(
        /^fulfil issues close: no worker takes commands at redis:\/\/127\.0\.0\.1:6379 under QUEUE_PREFIX=t\w+ .*Nothing was sent\.\n$/,
      );
      const refused = await cli(
        { DATA_DIR: dataDir, REDIS_URL: 'redis://127.0.0.1:1' },
        ['issues', 'close', '1', '--outcome', 'no_fault'],
        10_000,
      );
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(/^fulfil issues close: cannot reach the service's Redis at redis:\/\/127\.0\.0\.1:1 \(from REDIS_URL\)/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
