import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { producerConnection, type RedisConnection } from '@fulfil/client/transport';
import { deliverJob } from '../../src/webhooks/deliver-chain.ts';
import { redeliver } from '../../src/webhooks/deliveries-log.ts';
import { deliverDeps } from '../../src/webhooks/webhook-worker.ts';
import { WebhookQueue } from '../../src/webhooks/webhook-queue.ts';
import { apiClient, linkDeliveryFlow } from '../support/api.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver, until } from '../support/webhook-receiver.ts';

const ORDERS = [940, 941, 942];
const SLOW = 940;
/** Orders that several jobs carry at once, each job naming them in its own order. */
const SHARED = Array.from({ length: 12 }, (_, i) => 950 + i);
const JOBS = 8;

/**
 * A job carries the chains of several orders of one endpoint (what one relay batch owes it). They
 * run side by side: an order whose receiver answers slowly holds back only its own later events.
 * The service here delivers nothing (WEBHOOK_CONCURRENCY=0); the test runs the job itself.
 */
describe('a webhook job carrying several orders', () => {
  let t: TestService;
  let redis: RedisConnection;
  let queue: WebhookQueue;
  const prefix = testPrefix();
  beforeAll(async () => {
    t = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_CONCURRENCY: '0', RELAY_INTERVAL_MS: '50' } });
    await t.seed(baseFixture([...ORDERS, ...SHARED]));
    redis = producerConnection(TEST_REDIS_URL);
    queue = new WebhookQueue({ prefix, connection: redis });
  });
  afterAll(async () => {
    await queue?.close();
    redis?.disconnect();
    await dropPrefix(prefix);
    await t?.stop();
  });

  /** Events still owed to the endpoint. */
  const owedTo = async (endpointId: number) =>
    (
      await t.db.database.rows<{ n: number }>(
        'select count(*)::int as n from webhook_deliveries where endpoint_id = $1 and delivered_at is null',
        [endpointId],
      )
    )[0]!.n;
  /** What the test's own delivery runs with: the service's, with this many calls in flight. */
  const depsWith = (concurrency: number) =>
    deliverDeps(
      { ...t.config, WEBHOOK_RESPONSE_TIMEOUT_MS: 5_000, WEBHOOK_CONCURRENCY: concurrency },
      { database: t.db.database, secretBox: t.service.secretBox, queue, log: pino({ level: 'silent' }) },
    );

  it('an order whose receiver answers slowly holds back only its own events', async () => {
    const rx = await startReceiver((r) => (r.body.order_id === SLOW ? { status: 204, delayMs: 600 } : 204));
    const call = apiClient(t.url);
    try {
      const created = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: rx.url });
      expect(created.status).toBe(201);
      const endpointId = (created.body as { id: number }).id;
      for (const order of ORDERS) await linkDeliveryFlow(call, order);
      const owed = () => owedTo(endpointId);
      await until('every event owed', async () => (await owed()) === ORDERS.length * 3);

      const deps = depsWith(16);
      const delivered = await deliverJob(deps, { endpointId, orderId: SLOW, deliveryId: 0, more: ORDERS.filter((o) => o !== SLOW) });
      expect(delivered).toBe(ORDERS.length * 3);
      expect(await owed()).toBe(0);
      expect(deps.slots.inFlight).toBe(0);

      const seqs = (order: number) => rx.acknowledged.filter((r) => r.body.order_id === order).map((r) => r.body.seq);
      for (const order of ORDERS) expect(seqs(order), `order ${order}`).toEqual([1, 2, 3]);
      // Both quick orders were done before the slow one's first event was answered.
      const firstSlow = rx.acknowledged.findIndex((r) => r.body.order_id === SLOW);
      expect(firstSlow).toBe(ORDERS.length * 3 - 3);
    } finally {
      await rx.close();
    }
  });

  it('jobs carrying the same orders in different orders neither deadlock nor send an event twice', async () => {
    // Answers take 0–3 ms, so acknowledgements and claims of the jobs interleave.
    const rx = await startReceiver(() => ({ status: 204, delayMs: Math.floor(Math.random() * 4) }));
    const call = apiClient(t.url);
    try {
      const created = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: rx.url });
      expect(created.status).toBe(201);
      const endpointId = (created.body as { id: number }).id;
      await Promise.all(SHARED.map((order) => linkDeliveryFlow(call, order)));
      const owed = () => owedTo(endpointId);
      await until('every event owed', async () => (await owed()) === SHARED.length * 3);

      const deps = depsWith(16 * JOBS);
      // Each job its own permutation: the locks two jobs want are taken in different orders.
      const jobs = Array.from({ length: JOBS }, (_, j) => {
        const orders = [...SHARED].sort((a, b) => ((a * 7919 + j * 104_729) % 97) - ((b * 7919 + j * 104_729) % 97));
        return { endpointId, orderId: orders[0]!, deliveryId: 0, more: orders.slice(1) };
      });
      // Ten times over: every event owed again (a redelivery), then the jobs run in rounds until nothing is owed.
      for (let pass = 1; pass <= 10; pass++) {
        if (pass > 1) await redeliver(t.db.database, queue, endpointId, { since: '2000-01-01T00:00:00Z' });
        expect(await owed()).toBe(SHARED.length * 3);
        for (let round = 0; round < 20 && (await owed()) > 0; round++) {
          const settled = await Promise.allSettled(jobs.map((job) => deliverJob(deps, job)));
          const failures = settled.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
          expect(failures, `pass ${pass}, round ${round}`).toEqual([]);
        }
        expect(await owed()).toBe(0);
        const ids = rx.all.map((r) => r.eventId);
        expect(ids.length, `calls after pass ${pass}`).toBe(pass * SHARED.length * 3);
        expect(new Set(ids).size).toBe(SHARED.length * 3);
        for (const order of SHARED) {
          expect(
            rx.acknowledged.filter((r) => r.body.order_id === order).map((r) => r.body.seq),
            `order ${order}`,
          ).toEqual(Array.from({ length: pass }, () => [1, 2, 3]).flat());
        }
      }
    } finally {
      await rx.close();
    }
  });
});
