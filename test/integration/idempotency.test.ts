import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { baseFixture, BUYER, SELLER, STRANGER } from '../support/fixtures.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { proxiedDatabaseUrl } from '../support/tcp-proxy.ts';
import { markExhausted } from '../../workers/mark-exhausted.ts';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { TEST_REDIS_URL } from '../support/env.ts';

describe('Idempotency-Key and async mode', () => {
  let db: TestDatabase;
  const prefix = testPrefix();
  let full: TestService;
  let call: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    db = await createTestDatabase();
    full = await startTestService({ db, prefix });
    const fixture = baseFixture(Array.from({ length: 20 }, (_, i) => 740 + i));
    await full.seed(fixture);
    call = apiClient(full.url);
  });
  afterAll(async () => {
    await full?.stop();
    await dropPrefix(prefix);
    await db?.drop();
  });

  const accept = (orderId: number, key?: string, extra: Record<string, string> = {}) =>
    call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 }, { ...(key ? { 'idempotency-key': key } : {}), ...extra });
  const count = async (table: string, orderId: number) =>
    (await db.database.sql!.unsafe(`select count(*)::int as n from ${table} where order_id = $1`, [orderId]))[0]!.n;

  it('the same key and request replays the first answer, a 4xx included', async () => {
    const first = await accept(740, 'k-740');
    const again = await accept(740, 'k-740');
    expect(first.status).toBe(200);
    expect(again).toMatchObject({ status: 200, body: first.body });
    expect(await count('shipments', 740)).toBe(1);
    // Without a key the same request is a new command, and the order is no longer pending.
    expect((await accept(740)).status).toBe(422);
    const refused = await call(SELLER, 'PUT', '/v9/shipments/999999', { mobile_transfer_type: 'XMobile' }, { 'idempotency-key': 'k-404' });
    expect(refused.status).toBe(404);
    const refusedAgain = await call(
      SELLER,
      'PUT',
      '/v9/shipments/999999',
      { mobile_transfer_type: 'XMobile' },
      { 'idempotency-key': 'k-404' },
    );
    expect(refusedAgain).toMatchObject({ status: 404, body: refused.body });
  });

  it('the same key with another request is 409 idempotency_conflict and changes nothing', async () => {
    expect((await accept(741, 'k-741')).status).toBe(200);
    const other = await accept(742, 'k-741');
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ errors: [{ code: 'idempotency_conflict', message: expect.any(String) }] });
    expect(await count('shipments', 742)).toBe(0);
  });

  it('keys are per brokerage: another brokerage may use the same key for its own request', async () => {
    expect((await accept(743, 'shared-key')).status).toBe(200);
    const buyer = await call(
      BUYER,
      'PUT',
      '/v9/shipments/999998',
      { ship_to_name: 'B', phone_number_attributes: { country_code: '+1', number: '5550100' } },
      { 'idempotency-key': 'shared-key' },
    );
    expect(buyer.status).toBe(404);
  });

  it('a client that lost the answer of an update retries with its key and gets the new id, not 410', async () => {
    const tbd = (await accept(744)).body.shipments[0].id;
    const update = () => call(SELLER, 'PUT', `/v9/shipments/${tbd}`, { mobile_transfer_type: 'XMobile' }, { 'idempotency-key': 'upd-744' });
    const first = await update();
    const retry = await update();
    expect(first.status).toBe(200);
    expect(retry).toMatchObject({ status: 200, body: first.body });
    expect(retry.body.id).not.toBe(tbd);
  });

  it('replays after Redis lost every job', async () => {
    const first = await accept(745, 'k-745');
    await dropPrefix(prefix);
    const again = await accept(745, 'k-745');
    expect(again).toMatchObject({ status: 200, body: first.body });
  });

  it('Prefer: respond-async answers 202 with a Location to poll until the synchronous answer', async () => {
    const res = await accept(746, undefined, { prefer: 'respond-async' });
    expect(res.status).toBe(202);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^\/v9\/commands\/[A-Za-z0-9_.-]+$/);
    expect(res.body).toEqual({ id: location.split('/').pop(), status: 'queued', url: location });
    let status: any;
    for (let i = 0; i < 100; i++) {
      status = await call(SELLER, 'GET', location);
      if (status.body.status === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(status.status).toBe(200);
    expect(status.body).toEqual({
      id: res.body.id,
      name: 'order.accept',
      status: 'succeeded',
      created_at: expect.any(String),
      finished_at: expect.any(String),
      response: {
        status: 200,
        body: { id: 746, oid: '1001-746', state: 'accepted', shipments: [expect.objectContaining({ type: 'TBD' })], livemode: true },
      },
    });
    // Another brokerage cannot see it.
    expect((await call(STRANGER, 'GET', location)).status).toBe(404);
    expect((await call(SELLER, 'GET', '/v9/commands/c-unknown')).status).toBe(404);
  });

  it('a command Redis lost while queued is given back to the queue when the key is replayed', async () => {
    const apiOnly = await startTestService({ db, prefix: `${prefix}x`, roles: { api: true, worker: false } });
    try {
      const queued = await apiClient(apiOnly.url)(
        SELLER,
        'POST',
        '/v9/orders/747/accept',
        { reviewer_id: 100 },
        { 'idempotency-key': 'k-747', prefer: 'respond-async' },
      );
      expect(queued.status).toBe(202);
      await dropPrefix(`${prefix}x`); // the job is gone; the command row says queued
    } finally {
      await apiOnly.stop();
    }
    const replay = await accept(747, 'k-747');
    expect(replay.status).toBe(200);
    expect(replay.body.id).toBe(747);
    expect(await count('shipments', 747)).toBe(1);
  });

  it('a synchronous call whose command outlasts the wait answers 202 the same way', async () => {
    const impatient = await startTestService({
      db,
      prefix: `${prefix}y`,
      roles: { api: true, worker: false },
      env: { COMMAND_WAIT_MS: '200' },
    });
    try {
      const res = await apiClient(impatient.url)(SELLER, 'POST', '/v9/orders/748/accept', { reviewer_id: 100 });
      expect(res.status).toBe(202);
      expect(res.headers.get('location')).toBe(`/v9/commands/${res.body.id}`);
      const status = await apiClient(impatient.url)(SELLER, 'GET', res.headers.get('location')!);
      expect(status.body).toMatchObject({ status: 'queued' });
      expect(status.body.response).toBeUndefined();
    } finally {
      await impatient.stop();
      await dropPrefix(`${prefix}y`);
    }
  });

  it('refuses a malformed key', async () => {
    const res = await accept(749, 'has space');
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'invalid_params', message: expect.stringContaining('Idempotency-Key') });
  });

  it('a command whose job used up its attempts runs again when its key is replayed', async () => {
    const p = `${prefix}z`;
    const { proxy, url: viaProxy } = await proxiedDatabaseUrl(db.url);
    const api = await startTestService({
      db,
      prefix: p,
      roles: { api: true, worker: false },
      env: { JOB_ATTEMPTS: '2', JOB_BACKOFF_MS: '10' },
    });
    const worker = await startTestService({
      db,
      prefix: p,
      roles: { api: false, worker: true },
      env: { DATABASE_URL: viaProxy, SHUTDOWN_DEADLINE_MS: '500' },
    });
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue('commands', { prefix: p, connection: redis });
    try {
      const send = () =>
        apiClient(api.url)(
          SELLER,
          'POST',
          '/v9/orders/752/accept',
          { reviewer_id: 100 },
          { 'idempotency-key': 'k-752', prefer: 'respond-async' },
        );
      proxy.cut(); // the worker cannot reach Postgres: every attempt fails
      const queued = await send();
      expect(queued.status).toBe(202);
      for (let i = 0; i < 200 && (await (await queue.getJob(queued.body.id))?.getState()) !== 'failed'; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(await (await queue.getJob(queued.body.id))!.getState()).toBe('failed');
      await proxy.restore();

      const replay = await apiClient(api.url)(
        SELLER,
        'POST',
        '/v9/orders/752/accept',
        { reviewer_id: 100 },
        { 'idempotency-key': 'k-752' },
      );
      expect(replay.status).toBe(200);
      expect(replay.body.id).toBe(752);
      expect(await count('shipments', 752)).toBe(1);
    } finally {
      await queue.close();
      redis.disconnect();
      await worker.stop();
      await api.stop();
      await proxy.close();
      await dropPrefix(p);
    }
  });

  it('an exhausted command shows failed with no response, and a replay runs it', async () => {
    const p = `${prefix}w`;
    const apiOnly = await startTestService({ db, prefix: p, roles: { api: true, worker: false } });
    let location: string;
    try {
      const queued = await apiClient(apiOnly.url)(
        SELLER,
        'POST',
        '/v9/orders/753/accept',
        { reviewer_id: 100 },
        { 'idempotency-key': 'k-753', prefer: 'respond-async' },
      );
      location = queued.headers.get('location')!;
      await markExhausted(db.database, queued.body.id);
      const status = await call(SELLER, 'GET', location);
      expect(status.body).toMatchObject({ status: 'failed', finished_at: expect.any(String) });
      expect(status.body.response).toBeUndefined();
    } finally {
      await apiOnly.stop();
      await dropPrefix(p);
    }
    const replay = await accept(753, 'k-753');
    expect(replay.status).toBe(200);
    expect((await call(SELLER, 'GET', location)).body).toMatchObject({ status: 'succeeded', response: { status: 200 } });
  });
});
