import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../chaos/cluster.ts';
import { apiClient } from '../support/api.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { startReceiver, until, type Received } from '../support/webhook-receiver.ts';

// Built `fulfil start` processes on a private Postgres and Redis: a worker killed mid-delivery,
// Redis restarted without its data, Postgres restarted. Nothing owed to the receiver is lost, and
// each order's events arrive in seq order; a repeat is only ever the same event sent again.

const ORDERS = Array.from({ length: 15 }, (_, i) => 900 + i);

/** Per order, the seqs acknowledged, with back-to-back repeats of one event (a lost acknowledgement) collapsed. */
function seqsPerOrder(received: readonly Received[]) {
  const out = new Map<number, number[]>();
  const lastId = new Map<number, string>();
  for (const r of received) {
    const order = r.body.order_id as number;
    if (lastId.get(order) === r.eventId) continue;
    lastId.set(order, r.eventId);
    out.set(order, [...(out.get(order) ?? []), r.body.seq]);
  }
  return out;
}

describe('webhook delivery through process, Redis and Postgres faults', () => {
  let c: Cluster;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    c = await startCluster({
      workers: 1,
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_BACKOFF_BASE_MS: '50',
        WEBHOOK_BACKOFF_MAX_MS: '300',
        WEBHOOK_CONNECT_TIMEOUT_MS: '1000',
        WEBHOOK_RESPONSE_TIMEOUT_MS: '1000',
        WEBHOOK_SWEEP_EVERY_MS: '300',
        RELAY_INTERVAL_MS: '100',
      },
    });
    const fixture = baseFixture(ORDERS);
    await c.seed(fixture);
    call = apiClient(c.apiUrl);
  }, 120_000);
  afterAll(async () => {
    await c?.stop();
  }, 120_000);

  /** created, updated, completed; a 503 while Postgres is away is retried with the same Idempotency-Key. */
  async function runTbdOrder(orderId: number) {
    const send = async (method: string, p: string, body: object, key: string) => {
      for (;;) {
        const res = await call(SELLER, method, p, body, { 'Idempotency-Key': key }).catch(() => undefined);
        if (res && res.status === 200) return res;
        if (res && res.status !== 503 && res.status !== 202) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const accepted = await send('POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 }, `a-${orderId}`);
    const updated = await send(
      'PUT',
      `/v9/shipments/${accepted.body.shipments[0].id}`,
      { mobile_transfer_type: 'XMobileLink' },
      `u-${orderId}`,
    );
    await send('PUT', `/v9/shipments/${updated.body.id}/complete`, { x_mobile_link: 'https://x.test/c' }, `c-${orderId}`);
  }

  it('a killed worker, a Redis that lost its data and a Postgres restart lose nothing and reorder nothing', async () => {
    let hung = false;
    const rx = await startReceiver((_r, n) => {
      if (n === 1) {
        hung = true;
        return 'hang';
      }
      return { status: 200, delayMs: 20 };
    });
    try {
      const created = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: rx.url });
      expect(created.status).toBe(201);

      // 1. The worker dies while the receiver holds the first call.
      await runTbdOrder(ORDERS[0]!);
      await until('the first call to hang', () => hung);
      await c.kill(c.workers[0]!);
      await c.addWorker();
      await Promise.all(ORDERS.slice(1, 5).map(runTbdOrder));
      await until('phase 1 delivered', () => seqsPerOrder(rx.acknowledged).size === 5 && rx.acknowledged.length >= 15, 60_000);

      // 2. Redis is killed and comes back empty while events are owed.
      rx.behave(() => 503);
      await Promise.all(ORDERS.slice(5, 10).map(runTbdOrder));
      await c.redis.kill();
      rmSync(path.join(c.dir, 'redis', 'appendonlydir'), { recursive: true, force: true });
      await c.redis.start();
      rx.behave(() => 200);
      await until('phase 2 delivered', () => (seqsPerOrder(rx.acknowledged).get(ORDERS[9]!)?.length ?? 0) === 3, 90_000);

      // 3. Postgres restarts while deliveries are in flight.
      rx.behave(() => ({ status: 200, delayMs: 100 }));
      const flows = Promise.all(ORDERS.slice(10).map(runTbdOrder));
      await until('deliveries under way', () => rx.all.some((r) => ORDERS.slice(10).includes(r.body.order_id)), 60_000);
      c.pg.stop('fast');
      await new Promise((r) => setTimeout(r, 1500));
      c.pg.start();
      await flows;

      const expected = new Map(ORDERS.map((o) => [o, [1, 2, 3]]));
      await until('everything delivered', () => ORDERS.every((o) => seqsPerOrder(rx.acknowledged).get(o)?.length === 3), 120_000);
      expect(Object.fromEntries(seqsPerOrder(rx.acknowledged))).toEqual(Object.fromEntries(expected));
      // Postgres agrees: nothing owed any more.
      const [owed] = await c.db.sql!`select count(*)::int as n from webhook_deliveries where delivered_at is null`;
      expect(owed!.n).toBe(0);
      expect(c.crashes()).toEqual([]);
    } finally {
      await rx.close();
    }
  }, 300_000);
});
