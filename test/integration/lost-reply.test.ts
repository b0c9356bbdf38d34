import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandIdFor } from '../../src/queues/dispatcher.ts';
import { QUEUE_OF } from '@fulfil/contract';
import { apiClient } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

// Redis stores the job but its reply to the API is lost (the link dies before the answer comes
// back). The command row is committed and the job exists, so the command will run: the API must
// say 202 with the command's Location, never 503 "not taken, nothing changed".

describe('a lost Redis reply', () => {
  let db: TestDatabase;
  const prefix = testPrefix();
  let api: TestService;
  let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
  let redis: Redis;
  let queue: Queue;
  const cleanups: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    const target = new URL(TEST_REDIS_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    // The API alone, its Redis through the proxy; no workers yet, so jobs wait where we can see them.
    api = await startTestService({
      db,
      prefix,
      roles: { api: true, worker: false },
      env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, COMMAND_WAIT_MS: '1000', SHUTDOWN_DEADLINE_MS: '500' },
    });
    await api.seed(baseFixture());
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    queue = new Queue(QUEUE_OF['order.accept'], { prefix, connection: redis });
  });
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
    await queue?.close();
    redis?.disconnect();
    await api?.stop();
    await proxy?.close();
    await dropPrefix(prefix);
    await db?.drop();
  });

  /** Sends an accept whose enqueue reaches Redis but whose reply never comes back. */
  async function acceptLosingTheReply(order: number, key: string, headers: Record<string, string> = {}) {
    // Back to normal first: the producer reconnected after the previous cut.
    for (let i = 0; i < 100 && (await fetch(`${api.url}/readyz`)).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
    const commandId = commandIdFor(1, key);
    const lost = proxy.loseRepliesAfter(commandId);
    const answer = apiClient(api.url)(
      SELLER,
      'POST',
      `/v9/orders/${order}/accept`,
      { reviewer_id: 100 },
      { 'Idempotency-Key': key, ...headers },
    );
    const first = await Promise.race([lost.then(() => 'sent'), answer]);
    expect(first, 'the enqueue reached Redis before any answer').toBe('sent');
    // Redis has the job; now the link dies and stays down for a moment, so the producer gives up.
    for (let i = 0; i < 100 && !(await queue.getJob(commandId)); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await queue.getJob(commandId)).toBeDefined();
    proxy.cut();
    const res = await answer;
    await proxy.restore();
    return { res, commandId };
  }

  const row = async (id: string) => (await db.database.sql!`select status, result_status from commands where id = ${id}`)[0];

  it('answers 202 with the Location of the recorded command (respond-async)', async () => {
    const { res, commandId } = await acceptLosingTheReply(ORDERS.tbd, 'lost-reply-async', { Prefer: 'respond-async' });
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(`/v9/commands/${commandId}`);
    expect(await row(commandId)).toEqual({ status: 'queued', result_status: null });
  });

  it('answers 202 with the Location while waiting for the answer', async () => {
    const { res, commandId } = await acceptLosingTheReply(ORDERS.tbd2, 'lost-reply-wait');
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(`/v9/commands/${commandId}`);
    expect(await row(commandId)).toEqual({ status: 'queued', result_status: null });
  });

  it('and the command then runs once a worker is there: its Location shows it done', async () => {
    const worker = await startTestService({ db, prefix, roles: { api: false, worker: true } });
    cleanups.push(() => worker.stop());
    const call = apiClient(api.url);
    for (const key of ['lost-reply-async', 'lost-reply-wait']) {
      const id = commandIdFor(1, key);
      let status: any;
      for (let i = 0; i < 100; i++) {
        status = (await call(SELLER, 'GET', `/v9/commands/${id}`)).body;
        if (status.status === 'succeeded') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toMatchObject({ status: 'succeeded', response: { status: 200 } });
    }
    const [o] = await db.database
      .sql!`select count(*)::int as n from orders where id in (${ORDERS.tbd}, ${ORDERS.tbd2}) and state = 'accepted'`;
    expect(o!.n).toBe(2);
  });
});
