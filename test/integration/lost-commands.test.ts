import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recoverLostCommands } from '../../workers/recover-lost.ts';
import { commandIdFor } from '../../src/queues/dispatcher.ts';
import { CommandQueues } from '@fulfil/client/transport';
import { apiClient } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, type TestService } from '../support/service.ts';

// A command taken (202, row in Postgres) whose job Redis then loses must still run, without the
// client replaying it: the workers rebuild the job from the commands row.

const ORDER_OF_TWO_REQUESTS = 790;

describe('lost commands', () => {
  let db: TestDatabase;
  const prefix = testPrefix();
  let api: TestService;
  let redis: Redis;
  const upsertBody = { officeId: 10, records: [{ remote_id: 1, quantity: 2 }] };

  beforeAll(async () => {
    db = await createTestDatabase();
    // No workers yet: commands wait in Redis, where the test then loses them.
    api = await startTestService({ db, prefix, roles: { api: true, worker: false } });
    await api.seed(baseFixture([ORDER_OF_TWO_REQUESTS]));
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    redis?.disconnect();
    await api?.stop();
    await dropPrefix(prefix);
    await db?.drop();
  });

  const row = async (id: string) => (await db.database.sql!`select status, result_status from commands where id = ${id}`)[0];

  it('leaves alone a command whose job Redis still has', async () => {
    const queued = await apiClient(api.url)(
      SELLER,
      'POST',
      `/v9/orders/${ORDERS.tbd2}/accept`,
      { reviewer_id: 100 },
      { prefer: 'respond-async' },
    );
    const queues = new CommandQueues({ prefix, connection: redis });
    try {
      expect(await recoverLostCommands({ database: db.database, queues, olderThanMs: 0 })).toEqual({ requeued: [], failed: [] });
    } finally {
      await queues.close();
    }
    expect(await row(queued.body.id)).toEqual({ status: 'queued', result_status: null });
  });

  it('runs a command whose job Redis lost, and marks failed one that cannot be rebuilt', async () => {
    const call = apiClient(api.url);
    const accept = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 }, { prefer: 'respond-async' });
    expect(accept.status).toBe(202);
    // An inventory batch keeps only a summary of its payload in Postgres.
    const queues = new CommandQueues({ prefix, connection: redis });
    await queues.enqueue('inventory.upsert', {
      commandId: 'lost-batch',
      actor: { brokerageId: 1, userId: null, via: 'upstream' },
      requestHash: 'h',
      payload: upsertBody as never,
    });
    await queues.close();
    await db.database.sql!`insert into commands (id, name, brokerage_id, request_hash, payload, actor)
      values ('lost-batch', 'inventory.upsert', 1, 'h', ${JSON.stringify({ officeId: 10, items: 1, summarized: true })}::jsonb,
              ${JSON.stringify({ brokerageId: 1, userId: null, via: 'upstream' })}::jsonb)`;

    await dropPrefix(prefix); // Redis lost every job

    const workers = await startTestService({
      db,
      prefix,
      roles: { api: false, worker: true },
      env: { RECOVERY_AFTER_MS: '50', RECOVERY_EVERY_MS: '50' },
    });
    try {
      for (let i = 0; i < 200 && (await row(accept.body.id))?.status !== 'succeeded'; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await row(accept.body.id)).toEqual({ status: 'succeeded', result_status: 200 });
      const shipments = await db.database.sql!`select count(*)::int as n from shipments where order_id = ${ORDERS.tbd}`;
      expect(shipments[0]!.n).toBe(1);
      for (let i = 0; i < 200 && (await row('lost-batch'))?.status !== 'failed'; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await row('lost-batch')).toEqual({ status: 'failed', result_status: null });
      // The command that was never lost is served too, now that there are workers.
      const status = await call(SELLER, 'GET', accept.headers.get('location')!);
      expect(status.body).toMatchObject({ status: 'succeeded', response: { status: 200, body: { id: ORDERS.tbd, state: 'accepted' } } });
    } finally {
      await workers.stop();
    }
  });

  it("runs a recorded command whose id another request's job took first (one Idempotency-Key, a synchronous and an asynchronous call)", async () => {
    // The synchronous call records nothing before its job: its job is in Redis under the key's id,
    // with its own body, when the asynchronous call with another body records its row and finds
    // the id taken (its own enqueue does nothing). The job runs as a conflict and stores nothing.
    const key = 'mixed-paths';
    const id = commandIdFor(1, key);
    const queues = new CommandQueues({ prefix, connection: redis });
    await queues.enqueue('order.accept', {
      commandId: id,
      actor: { brokerageId: 1, userId: null, via: 'api' },
      requestHash: 'the-synchronous-call',
      payload: { order_id: ORDER_OF_TWO_REQUESTS, reviewer_id: 999 } as never,
    });
    await queues.close();
    const recorded = await apiClient(api.url)(
      SELLER,
      'POST',
      `/v9/orders/${ORDER_OF_TWO_REQUESTS}/accept`,
      { reviewer_id: 100 },
      { prefer: 'respond-async', 'idempotency-key': key },
    );
    expect(recorded.status).toBe(202);
    expect(recorded.body.id).toBe(id);
    const workers = await startTestService({
      db,
      prefix,
      roles: { api: false, worker: true },
      env: { RECOVERY_AFTER_MS: '50', RECOVERY_EVERY_MS: '50' },
    });
    try {
      for (let i = 0; i < 300 && (await row(id))?.status !== 'succeeded'; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await row(id)).toEqual({ status: 'succeeded', result_status: 200 });
      const order = await db.database.sql!`select state, reviewer_id from orders where id = ${ORDER_OF_TWO_REQUESTS}`;
      expect(order[0]).toMatchObject({ state: 'accepted', reviewer_id: 100 });
    } finally {
      await workers.stop();
    }
  });

  it('keeps recovering after Redis lost everything while the workers ran (the schedulers come back)', async () => {
    const workers = await startTestService({
      db,
      prefix,
      roles: { api: false, worker: true },
      env: { RECOVERY_AFTER_MS: '50', RECOVERY_EVERY_MS: '50' },
    });
    try {
      // Redis loses every key while the workers run: jobs, and the housekeeping schedulers too.
      await new Promise((r) => setTimeout(r, 300));
      await dropPrefix(prefix);
      // A command taken before the loss, whose job went with it: only its row knows it now.
      const id = 'lost-after-flush';
      await db.database.sql!`insert into commands (id, name, brokerage_id, request_hash, payload, actor, created_at)
        values (${id}, 'order.accept', 1, 'h-lost', ${JSON.stringify({ order_id: ORDERS.tbd3, reviewer_id: 100 })}::jsonb,
                ${JSON.stringify({ brokerageId: 1, userId: null, via: 'api' })}::jsonb, now() - interval '1 minute')`;
      for (let i = 0; i < 300 && (await row(id))?.status !== 'succeeded'; i++) await new Promise((r) => setTimeout(r, 50));
      const accept = { body: { id } };
      expect(await row(accept.body.id)).toEqual({ status: 'succeeded', result_status: 200 });
    } finally {
      await workers.stop();
    }
  });
});
