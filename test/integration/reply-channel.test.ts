import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_OF } from '@fulfil/contract';
import { apiClient } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

// The worker hands each answer to the API process that waits for it, on that process's reply
// channel. The wait here (60 s) outlasts the test's own timeout: an answer that did not come back
// on the channel would fail the test instead of arriving through the Postgres fallback.
const PATIENT = { COMMAND_WAIT_MS: '60000', HTTP_HANDLER_TIMEOUT_MS: '65000' };

describe('answers on the reply channel of the waiting API process', () => {
  let db: TestDatabase;
  const prefix = testPrefix();
  let worker: TestService;
  let redis: Redis;
  let queue: Queue;

  beforeAll(async () => {
    db = await createTestDatabase();
    worker = await startTestService({ db, prefix, roles: { api: false, worker: true } });
    await worker.seed(baseFixture());
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    queue = new Queue(QUEUE_OF['order.accept'], { prefix, connection: redis });
  });
  afterAll(async () => {
    await queue?.close();
    redis?.disconnect();
    await worker?.stop();
    await dropPrefix(prefix);
    await db?.drop();
  });

  const subscribers = async (channel: string) => ((await redis.pubsub('NUMSUB', channel)) as [string, number])[1];

  async function acceptThrough(api: TestService, order: number) {
    const res = await apiClient(api.url)(SELLER, 'POST', `/v9/orders/${order}/accept`, { reviewer_id: 100 });
    expect(res.status).toBe(200);
    const job = await queue.getJob(res.headers.get('x-command-id')!);
    return job!.data.replyTo as string;
  }

  it('reaches an API in another process, and a restarted API gets a channel of its own; nothing is left behind', async () => {
    const first = await startTestService({ db, prefix, roles: { api: true, worker: false }, env: PATIENT });
    const firstChannel = await acceptThrough(first, ORDERS.tbd);
    expect(firstChannel.startsWith(`${prefix}:replies:`)).toBe(true);
    expect(await subscribers(firstChannel)).toBe(1);
    await first.stop();
    expect(await subscribers(firstChannel)).toBe(0);

    const second = await startTestService({ db, prefix, roles: { api: true, worker: false }, env: PATIENT });
    try {
      const secondChannel = await acceptThrough(second, ORDERS.tbd2);
      expect(secondChannel).not.toBe(firstChannel);
    } finally {
      await second.stop();
    }
    // Pub/sub stores nothing: no reply key outlives the processes.
    expect(await redis.keys(`${prefix}:replies*`)).toEqual([]);
  });
});

describe('an answer published while the reply channel was down', () => {
  let db: TestDatabase;
  const prefix = testPrefix();
  let redis: Redis;
  let queue: Queue;
  const stops: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    queue = new Queue(QUEUE_OF['order.accept'], { prefix, connection: redis });
  });
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await queue?.close();
    redis?.disconnect();
    await dropPrefix(prefix);
    await db?.drop();
  });

  it('is read from Postgres once the channel is back, long before the wait runs out', async () => {
    const target = new URL(TEST_REDIS_URL);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    stops.push(() => proxy.close());
    // The API alone, its Redis through the proxy; the worker comes once the link is cut.
    const api = await startTestService({
      db,
      prefix,
      roles: { api: true, worker: false },
      env: { ...PATIENT, REDIS_URL: `redis://127.0.0.1:${proxy.port}` },
    });
    stops.push(() => api.stop());
    await api.seed(baseFixture());
    const answer = apiClient(api.url)(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    let job;
    for (let i = 0; i < 200 && !(job = (await queue.getJobs(['wait']))[0]); i++) await new Promise((r) => setTimeout(r, 20));
    expect(job?.data.replyTo).toBeDefined();
    proxy.cut();
    // The worker runs the command and publishes its answer to a channel nobody hears now.
    const worker = await startTestService({ db, prefix, roles: { api: false, worker: true } });
    stops.push(() => worker.stop());
    const finished = async () => (await db.database.sql!`select status from commands where id = ${job!.id!}`)[0]?.status === 'succeeded';
    for (let i = 0; i < 200 && !(await finished()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await finished()).toBe(true);
    await proxy.restore();
    const res = await answer;
    expect(res.status).toBe(200);
  });
});
