import { Queue } from 'bullmq';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FulfilmentClient } from '../../src/client/fulfilment-client.ts';
import { EVENTS_QUEUE } from '../../src/queues/job-map.ts';
import { blockingConnection } from '../../src/redis/connections.ts';
import { apiClient, BUYER_PICKUP_BODY, SELLER_PICKUP_BODY } from '../support/api.ts';
import { baseFixture, BUYER, ORDERS, SELLER } from '../support/fixtures.ts';
import { startRedisCluster, type PrivateCluster } from '../support/redis-cluster.ts';
import { startTestService, type TestService } from '../support/service.ts';

// The whole service on a real three-master Redis Cluster made here: API, workers, the relay and
// the producer client all reach it by REDIS_URL=redis+cluster://…, and every key of the service
// lands in one hash slot.

async function until(what: string, check: () => Promise<boolean>, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('on a Redis Cluster', () => {
  let cluster: PrivateCluster;
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let client: FulfilmentClient;

  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    t = await startTestService({ env: { REDIS_URL: cluster.url, RELAY_INTERVAL_MS: '50' } });
    const fixture = baseFixture();
    for (const id of [760, 761]) fixture.orders.push({ ...fixture.orders[0]!, id, oid: `1001-${id}` });
    await t.seed(fixture);
    call = apiClient(t.url);
    client = new FulfilmentClient({ redisUrl: cluster.url, prefix: t.prefix, defaultTimeoutMs: 15_000 });
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await t?.stop();
    await cluster?.stop();
  });

  it('is a real cluster of three masters, and the service uses a hash-tagged prefix', async () => {
    const node = new Redis(cluster.ports[0]!, '127.0.0.1', { maxRetriesPerRequest: 1 });
    try {
      const masters = String(await node.cluster('NODES'))
        .split('\n')
        .filter((l) => l.includes('master') && /\d+-\d+/.test(l));
      expect(masters).toHaveLength(3);
    } finally {
      node.disconnect();
    }
    expect(t.config.QUEUE_PREFIX).toBe(`{${t.prefix}}`);
    expect(client.prefix).toBe(`{${t.prefix}}`);
  });

  it('runs link delivery and transfer: accept → update → complete', async () => {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'XMobileLink' });
    expect(updated.body).toMatchObject({ type: 'XMobileLink', state: 'pending' });
    const completed = await call(SELLER, 'PUT', `/v9/shipments/${updated.body.id}/complete`, {
      x_mobile_link: 'https://claim.example.test/c',
    });
    expect(completed.body).toMatchObject({ id: updated.body.id, state: 'delivered', x_mobile_link: 'https://claim.example.test/c' });

    const accepted2 = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd2}/accept`, { reviewer_id: 100 });
    const transfer = await call(SELLER, 'PUT', `/v9/shipments/${accepted2.body.shipments[0].id}`, { mobile_transfer_type: 'XMobile' });
    expect(transfer.body).toMatchObject({ type: 'XMobile', ship_to_name: 'Bo Buyer' });
    expect((await call(SELLER, 'PUT', `/v9/shipments/${transfer.body.id}/complete`, {})).body).toMatchObject({ state: 'delivered' });

    const flash = await call(SELLER, 'POST', `/v9/orders/${ORDERS.flash}/accept`, { reviewer_id: 100 });
    expect(flash.body.shipments[0]).toMatchObject({ type: 'XSeats', state: 'pending' });
    expect((await call(SELLER, 'PUT', `/v9/shipments/${flash.body.shipments[0].id}/complete`)).body).toMatchObject({ state: 'delivered' });
    const states = await t.db.database.sql!`select state from orders where id in (${ORDERS.tbd}, ${ORDERS.tbd2}, ${ORDERS.flash})`;
    expect(states.map((r) => r.state)).toEqual(['completed', 'completed', 'completed']);
  });

  it('joins a local pickup from both parties', async () => {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.localPickup}/accept`, { reviewer_id: 100 });
    const lp = accepted.body.shipments[0].id;
    const buyer = await call(BUYER, 'PUT', `/v9/shipments/${lp}`, BUYER_PICKUP_BODY);
    expect(buyer.status).toBe(200);
    const seller = await call(SELLER, 'PUT', `/v9/shipments/${buyer.body.id}`, SELLER_PICKUP_BODY);
    expect(seller.status).toBe(200);
    const read = await call(BUYER, 'GET', `/v9/shipments/${seller.body.id}`);
    expect(read.body).toMatchObject({ type: 'LocalPickup', ship_to_name: 'Bo Buyer', ship_from_name: 'Sam Seller' });
  });

  it('replays an Idempotency-Key with the first answer and changes nothing', async () => {
    const headers = { 'idempotency-key': 'cluster-704' };
    const first = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd3}/accept`, { reviewer_id: 100 }, headers);
    const again = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd3}/accept`, { reviewer_id: 100 }, headers);
    expect(first.status).toBe(200);
    expect(again).toMatchObject({ status: 200, body: first.body });
    const async = await call(
      SELLER,
      'POST',
      `/v9/orders/${ORDERS.tbd3}/accept`,
      { reviewer_id: 100 },
      { ...headers, prefer: 'respond-async' },
    );
    expect([200, 202]).toContain(async.status);
    const shipments = await t.db.database.sql!`select count(*)::int as n from shipments where order_id = ${ORDERS.tbd3}`;
    expect(shipments[0]!.n).toBe(1);
  });

  it('takes commands from the producer client, awaited and replayed by command id', async () => {
    const accepted = await client.acceptOrder({ order_id: 760, reviewer_id: 100 }, { brokerageId: 1, await: true, commandId: 'cl-760' });
    expect(accepted).toMatchObject({ commandId: 'cl-760', status: 200, body: { id: 760, state: 'accepted' } });
    const replay = await client.acceptOrder({ order_id: 760, reviewer_id: 100 }, { brokerageId: 1, await: true, commandId: 'cl-760' });
    expect(replay).toEqual(accepted);
    const sent = await client.acceptOrder({ order_id: 761, reviewer_id: 100 }, { brokerageId: 1, commandId: 'cl-761' });
    expect(sent).toEqual({ commandId: 'cl-761' });
    await until('the fire-and-forget command to run', async () => {
      const [row] = await t.db.database.sql!`select status from commands where id = 'cl-761'`;
      return row?.status === 'succeeded';
    });
  });

  it('relays every event to the events queue on the cluster', async () => {
    await until(
      'outbox drained',
      async () => (await t.db.database.sql!`select count(*)::int as n from outbox where relayed_at is null`)[0]!.n === 0,
      50_000,
    );
  }, 60_000);

  it('keeps the events in order per order, and every key in one slot', async () => {
    const connection = blockingConnection(cluster.url) as Cluster;
    const queue = new Queue(EVENTS_QUEUE, { prefix: t.config.QUEUE_PREFIX, connection });
    try {
      const jobs = await queue.getJobs(['wait'], 0, -1, true);
      const seqOf = (orderId: number) =>
        jobs.map((j) => j.data as { order_id: number; seq: number; kind: string }).filter((e) => e.order_id === orderId);
      expect(seqOf(ORDERS.tbd).map((e) => [e.seq, e.kind])).toEqual([
        [1, 'created'],
        [2, 'updated'],
        [3, 'completed'],
      ]);
      expect(seqOf(ORDERS.localPickup).map((e) => [e.seq, e.kind])).toEqual([
        [1, 'created'],
        [2, 'pickup_details'],
        [3, 'delivered'],
      ]);
      const expected = (await t.db.database.sql!`select count(*)::int as n from outbox`)[0]!.n;
      expect(jobs).toHaveLength(expected);

      // Every key under the prefix, on whichever master holds it: one slot, so one node.
      const slots = new Set<number>();
      const names: string[] = [];
      for (const node of connection.nodes('master')) {
        let cursor = '0';
        do {
          const [next, found] = await node.scan(cursor, 'MATCH', `${t.config.QUEUE_PREFIX}:*`, 'COUNT', 1000);
          cursor = next;
          names.push(...found);
          for (const k of found) slots.add(Number(await node.cluster('KEYSLOT', k)));
        } while (cursor !== '0');
      }
      expect(names.length).toBeGreaterThan(10);
      // The rate limiter's counters (written in a MULTI) are there too, in the same slot.
      expect(names.some((k) => k.includes(':ratelimit:'))).toBe(true);
      expect(slots.size).toBe(1);
    } finally {
      await queue.close();
      connection.disconnect();
    }
  }, 60_000);
});
