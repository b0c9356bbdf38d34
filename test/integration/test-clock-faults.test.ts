import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../chaos/cluster.ts';
import { apiClient } from '../support/api.ts';
import { baseFixture } from '../support/fixtures.ts';
import { until } from '../support/webhook-receiver.ts';

// A test clock's advance on built processes (a private Postgres and Redis): the worker SIGKILLed
// half-way, and Redis flushed half-way, each still end with the clock ready at its target and
// every timer that fell due fired once, at the clock time it fell due.

const TEST_SELLER = { token: 'SellerFaultClockToken00000000001', secret: 'seller-fault-clock-secret-00000000000001' };
const DAY = 86_400_000;
const T0 = Date.parse('2032-05-01T00:00:00.000Z');
const ORDERS = 400;
const iso = (ms: number) => new Date(ms).toISOString();

describe('test clock advances under faults, on built processes', () => {
  let c: Cluster;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    c = await startCluster({ workers: 1, env: { TIMER_SWEEP_EVERY_MS: '1000', RELAY_INTERVAL_MS: '50' } });
    const fixture = baseFixture();
    fixture.brokerages[0]!.credentials.push({ kind: 'api', mode: 'test', ...TEST_SELLER } as never);
    await c.seed(fixture);
    call = apiClient(c.apiUrl);
  }, 120_000);
  afterAll(async () => {
    await c?.stop();
  }, 120_000);

  /** A clock with ORDERS orders whose deadlines spread over 30 days: two timers each. */
  async function clockWithOrders(): Promise<{ clockId: number; orderIds: number[] }> {
    const clock = await call(TEST_SELLER, 'POST', '/v9/test_clocks', { frozen_time: iso(T0) });
    expect(clock.status).toBe(201);
    const clockId = clock.body.id as number;
    const orderIds: number[] = [];
    for (let i = 0; i < ORDERS; i++) {
      const deliverBy = T0 + 2 * DAY + Math.floor((i * 28 * DAY) / ORDERS);
      const r = await call(TEST_SELLER, 'POST', '/v9/test_helpers/orders', {
        role: 'seller',
        deliver_by: iso(deliverBy),
        test_clock: clockId,
      });
      expect(r.status).toBe(201);
      orderIds.push(r.body.id as number);
    }
    return { clockId, orderIds };
  }

  const firedCount = async (orderIds: number[]) =>
    (
      await c.db.sql!`select count(*)::int as n from shipment_events
        where order_id = any(${orderIds}::bigint[]) and kind in ('due_soon', 'overdue')`
    )[0]!.n as number;

  async function expectEveryTimerOnce(clockId: number, orderIds: number[]) {
    await until(
      'the clock ready at its target',
      async () => (await call(TEST_SELLER, 'GET', `/v9/test_clocks/${clockId}`)).body.status === 'ready',
      90_000,
    );
    const clock = await call(TEST_SELLER, 'GET', `/v9/test_clocks/${clockId}`);
    expect(clock.body.frozen_time).toBe(iso(T0 + 31 * DAY));
    const rows = await c.db.sql!`select e.order_id, e.kind, e.at, o.deliver_by, o.due_soon_at from shipment_events e
      join orders o on o.id = e.order_id where e.order_id = any(${orderIds}::bigint[]) and e.kind in ('due_soon', 'overdue')`;
    expect(rows.length).toBe(2 * ORDERS);
    const seen = new Set<string>();
    for (const r of rows) {
      const key = `${r.order_id}-${r.kind}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
      expect(new Date(r.at).getTime()).toBe(new Date(r.kind === 'overdue' ? r.deliver_by : r.due_soon_at).getTime());
    }
    expect(c.crashes()).toEqual([]);
  }

  it('the worker SIGKILLed half-way: a new worker finishes the advance, every timer once', async () => {
    const { clockId, orderIds } = await clockWithOrders();
    expect((await call(TEST_SELLER, 'POST', `/v9/test_clocks/${clockId}/advance`, { frozen_time: iso(T0 + 31 * DAY) })).status).toBe(200);
    await until('some timers fired', async () => (await firedCount(orderIds)) > 0, 30_000);
    await c.kill(c.workers[0]!);
    // Killed half-way, not after: otherwise this test proves nothing.
    expect(await firedCount(orderIds)).toBeLessThan(2 * ORDERS);
    await c.addWorker();
    await expectEveryTimerOnce(clockId, orderIds);
  }, 180_000);

  it('Redis flushed half-way (the advance job and every timer job gone): the advance still ends, every timer once', async () => {
    const { clockId, orderIds } = await clockWithOrders();
    expect((await call(TEST_SELLER, 'POST', `/v9/test_clocks/${clockId}/advance`, { frozen_time: iso(T0 + 31 * DAY) })).status).toBe(200);
    await until('some timers fired', async () => (await firedCount(orderIds)) > 0, 30_000);
    const redis = new Redis(c.redis.url, { maxRetriesPerRequest: null });
    try {
      await redis.flushall();
    } finally {
      redis.disconnect();
    }
    expect(await firedCount(orderIds)).toBeLessThan(2 * ORDERS);
    // And the worker killed too, so only what Postgres holds can finish it.
    await c.kill(c.workers[c.workers.length - 1]!);
    await c.addWorker();
    await expectEveryTimerOnce(clockId, orderIds);
  }, 180_000);
});
