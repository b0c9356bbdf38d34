import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { requestFingerprint } from '@fulfil/contract';

// At-least-once delivery meets exactly-once effect: redeliveries and racing workers on one
// order never duplicate a shipment nor lose an update. One API process, two worker processes.

describe('command delivery', () => {
  let db: TestDatabase;
  const prefix = testPrefix();
  let api: TestService;
  let workers: TestService[];
  let call: ReturnType<typeof apiClient>;
  let queue: Queue;
  let redis: Redis;

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startTestService({ db, prefix, roles: { api: true, worker: false } });
    workers = await Promise.all([1, 2].map(() => startTestService({ db, prefix, roles: { api: false, worker: true } })));
    const fixture = baseFixture(Array.from({ length: 10 }, (_, i) => 720 + i));
    await api.seed(fixture);
    call = apiClient(api.url);
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    queue = new Queue('commands', { prefix, connection: redis });
  });
  afterAll(async () => {
    await queue?.close();
    redis?.disconnect();
    await Promise.all([api, ...(workers ?? [])].map((s) => s?.stop()));
    await dropPrefix(prefix);
    await db?.drop();
  });

  const sql = () => db.database.sql!;
  const shipmentsOf = async (orderId: number) => sql()`select id, type, replaced_by from shipments where order_id = ${orderId} order by id`;

  async function waitFinished(commandId: string) {
    for (let i = 0; i < 200; i++) {
      const [row] = await sql()`select status, result_status, result_body from commands where id = ${commandId}`;
      if (row && (row.status === 'succeeded' || row.status === 'failed')) return row;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`command ${commandId} did not finish`);
  }

  it('the same command delivered twice, even at once, runs once and answers the same', async () => {
    const payload = { order_id: 720, reviewer_id: 100 };
    const envelope = {
      commandId: 'dup-accept-720',
      actor: { brokerageId: 1, userId: null, via: 'upstream' },
      requestHash: requestFingerprint('order.accept', payload),
      payload,
    };
    // Two jobs carrying one command: what a stalled-job redelivery looks like to the workers.
    await Promise.all([
      queue.add('order.accept', envelope, { jobId: 'dup-accept-720' }),
      queue.add('order.accept', envelope, { jobId: 'dup-accept-720-redelivered' }),
    ]);
    const first = await waitFinished('dup-accept-720');
    expect(first.result_status).toBe(200);
    // And once more after everything finished, with the job gone from Redis.
    await new Promise((r) => setTimeout(r, 300));
    await queue.add('order.accept', envelope, { jobId: 'dup-accept-720-late' });
    for (let i = 0; i < 200 && !(await (await queue.getJob('dup-accept-720-late'))!.isCompleted()); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await queue.getJob('dup-accept-720-late'))!.returnvalue).toEqual({ status: 200, body: first.result_body });
    expect(await shipmentsOf(720)).toHaveLength(1);
    const [cmd] = await sql()`select result_body, attempts from commands where id = 'dup-accept-720'`;
    expect(cmd!.result_body).toEqual(first.result_body);
    const [events] = await sql()`select count(*)::int as n from shipment_events where order_id = 720`;
    expect(events!.n).toBe(1);
  });

  it('the same Idempotency-Key over HTTP replays the first answer and changes nothing', async () => {
    const headers = { 'idempotency-key': 'accept-721-once' };
    const [a, b] = await Promise.all([
      call(SELLER, 'POST', '/v9/orders/721/accept', { reviewer_id: 100 }, headers),
      call(SELLER, 'POST', '/v9/orders/721/accept', { reviewer_id: 100 }, headers),
    ]);
    const c = await call(SELLER, 'POST', '/v9/orders/721/accept', { reviewer_id: 100 }, headers);
    expect([a.status, b.status, c.status]).toEqual([200, 200, 200]);
    expect(b.body).toEqual(a.body);
    expect(c.body).toEqual(a.body);
    expect(await shipmentsOf(721)).toHaveLength(1);
  });

  it('many updates racing on one shipment across two workers: one wins, the rest get 410, one live shipment', async () => {
    const accepted = await call(SELLER, 'POST', '/v9/orders/722/accept', { reviewer_id: 100 });
    const id = accepted.body.shipments[0].id;
    const types = ['XMobile', 'XMobileLink', 'XSeats', 'Eticket', 'XMobile', 'XSeats', 'XMobileLink', 'Eticket'];
    const results = await Promise.all(types.map((type) => call(SELLER, 'PUT', `/v9/shipments/${id}`, { mobile_transfer_type: type })));
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(410);
      expect(r.body.errors[0].replaced_by).toBe(winners[0]!.body.id);
    }
    const rows = await shipmentsOf(722);
    expect(rows.filter((r) => r.replaced_by === null)).toEqual([
      { id: winners[0]!.body.id, type: winners[0]!.body.type, replaced_by: null },
    ]);
    expect(rows).toHaveLength(2);
  });

  it('a chain of updates on each of several orders at once loses none of them', async () => {
    const orderIds = [723, 724, 725, 726, 727];
    await Promise.all(
      orderIds.map(async (orderId) => {
        let id = (await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 })).body.shipments[0].id;
        for (const type of ['XMobile', 'XSeats', 'XMobileLink', 'XMobile']) {
          const r = await call(SELLER, 'PUT', `/v9/shipments/${id}`, { mobile_transfer_type: type });
          expect(r.status).toBe(200);
          id = r.body.id;
        }
        expect((await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`)).status).toBe(200);
      }),
    );
    for (const orderId of orderIds) {
      const rows = await shipmentsOf(orderId);
      expect(rows).toHaveLength(5);
      expect(rows.filter((r) => r.replaced_by === null)).toHaveLength(1);
      const events = await sql()`select seq, kind from shipment_events where order_id = ${orderId} order by seq`;
      expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    }
  });

  it('a job acting for a brokerage that does not exist is refused at once, not retried', async () => {
    const payload = { order_id: 728, reviewer_id: 100 };
    await queue.add(
      'order.accept',
      {
        commandId: 'ghost-brokerage',
        actor: { brokerageId: 999_999, userId: null, via: 'upstream' },
        requestHash: requestFingerprint('order.accept', payload),
        payload,
      },
      { jobId: 'ghost-brokerage' },
    );
    for (let i = 0; i < 200 && !(await (await queue.getJob('ghost-brokerage'))!.isCompleted()); i++)
      await new Promise((r) => setTimeout(r, 25));
    const job = (await queue.getJob('ghost-brokerage'))!;
    expect(job.attemptsMade).toBe(1);
    expect(job.returnvalue).toEqual({
      status: 400,
      body: { errors: [{ code: 'invalid_params', message: 'brokerageId: no brokerage 999999', field: 'brokerageId' }] },
    });
    expect(await shipmentsOf(728)).toHaveLength(0);
    // No key refuses the row any more (the claim's own check does): nothing may be stored.
    expect(await sql()`select id from commands where id = 'ghost-brokerage'`).toHaveLength(0);
  });
});
