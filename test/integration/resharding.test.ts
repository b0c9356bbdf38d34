import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FulfilmentClient } from '@fulfil/client';
import { ShardCountMismatch, blockingConnection } from '@fulfil/client/transport';
import { commandShardPlaces, shardCountsKey } from '@fulfil/contract';
import { apiClient } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { startRedisCluster, type PrivateCluster } from '../support/redis-cluster.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { Queue } from 'bullmq';

// Changing COMMAND_SHARDS while commands flow, as docs/SCALING.md tells an operator to: workers of
// the new count first (they drain the old count's queues too), then the producers, then the old
// processes go. From 1 to 3, then from 3 to 6, on a real three-master cluster: every command taken
// runs exactly once (0 lost, 0 duplicated), and a producer left on a retired count is told so.

const ORDER_IDS = Array.from({ length: 150 }, (_, i) => 2000 + i);
const CLIENT_ORDERS = Array.from({ length: 30 }, (_, i) => 3000 + i);

describe('changing the shard count under load', () => {
  let cluster: PrivateCluster;
  let db: TestDatabase;
  const prefix = `rs${process.pid}`;
  const running: TestService[] = [];
  let redis: Redis;

  const start = async (shards: number, roles: { api: boolean; worker: boolean }) => {
    const s = await startTestService({
      db,
      prefix,
      roles,
      env: {
        REDIS_URL: cluster.url,
        COMMAND_SHARDS: String(shards),
        SHARD_REFRESH_MS: '200',
        SHARD_RETIRE_IDLE_MS: '1000',
        RATE_LIMIT_PER_MINUTE: '0',
        COMMAND_WAIT_MS: '20000',
        HTTP_HANDLER_TIMEOUT_MS: '25000',
      },
    });
    running.push(s);
    return s;
  };
  const stop = async (s: TestService) => {
    running.splice(running.indexOf(s), 1);
    await s.stop();
  };
  const sql = () => db.database.sql!;

  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    db = await createTestDatabase();
    redis = new Redis(cluster.ports[0]!, '127.0.0.1');
    const fixture = baseFixture([...ORDER_IDS, ...CLIENT_ORDERS]);
    const seeder = await start(1, { api: true, worker: true });
    await seeder.seed(fixture);
  }, 120_000);
  afterAll(async () => {
    for (const s of [...running].reverse()) await s.stop().catch(() => {});
    redis?.disconnect();
    await db?.drop();
    await cluster?.stop();
  });

  /** Which counts the workers announce now (the well-known key). */
  const announced = async () => {
    const c = blockingConnection(cluster.url);
    try {
      return Object.keys(await c.hgetall(shardCountsKey(`{${prefix}}`)))
        .map(Number)
        .sort((a, b) => a - b);
    } finally {
      c.disconnect();
    }
  };
  const until = async (what: string, check: () => Promise<boolean>, ms = 60_000) => {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('loses and repeats nothing from 1 to 3 and from 3 to 6 shards', async () => {
    const first = running[0]!;
    let apis = [first.url];
    const answers: Array<{ order: number; step: string; status: number }> = [];
    const pending = [...ORDER_IDS];
    let stopLoad = false;
    // Four clients, each running accept → update → complete on one order after another, on
    // whichever API processes are current.
    let turn = 0;
    const inFlight = new Map<string, number>();
    // Each call goes to one of the current API processes, counted while in flight so a process
    // is stopped only once nothing is waiting on it (a load balancer's connection draining).
    const api = async (method: string, path: string, body: object) => {
      const url = apis[turn++ % apis.length]!;
      inFlight.set(url, (inFlight.get(url) ?? 0) + 1);
      try {
        return await apiClient(url)(SELLER, method, path, body);
      } finally {
        inFlight.set(url, inFlight.get(url)! - 1);
      }
    };
    const drained = (url: string) => until(`calls to ${url} answered`, async () => !inFlight.get(url));
    const loop = async () => {
      while (!stopLoad && pending.length) {
        const order = pending.shift()!;
        const accepted = await api('POST', `/v9/orders/${order}/accept`, { reviewer_id: 100 });
        answers.push({ order, step: 'accept', status: accepted.status });
        if (accepted.status !== 200) continue;
        const updated = await api('PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'XMobileLink' });
        answers.push({ order, step: 'update', status: updated.status });
        if (updated.status !== 200) continue;
        const done = await api('PUT', `/v9/shipments/${updated.body.id}/complete`, { x_mobile_link: 'https://claim.example.test/c' });
        answers.push({ order, step: 'complete', status: done.status });
      }
    };
    const load = Promise.all([loop(), loop(), loop(), loop()]);
    // An upstream producer on one shard, sending fire-and-forget while the count changes.
    const oldClient = new FulfilmentClient({ redisUrl: cluster.url, prefix, commandShards: 1 });
    const clientSent: string[] = [];
    const sendFromClient = async (n: number) => {
      for (const order of CLIENT_ORDERS.splice(0, n)) {
        const sent = await oldClient.acceptOrder({ order_id: order, reviewer_id: 100 }, { brokerageId: 1, commandId: `up-${order}` });
        clientSent.push(sent.commandId);
      }
    };
    const progressed = (n: number) => until(`${n} answers`, async () => answers.length >= n);

    try {
      await progressed(30);
      expect(await announced()).toEqual([1]);
      // 1 → 3: workers of the new count first. They announce 3 and also consume the queue of 1.
      const w3 = await start(3, { api: false, worker: true });
      await until('3 announced', async () => (await announced()).join() === '1,3');
      await sendFromClient(10);
      // Then an API process of the new count takes the traffic, and the old process goes.
      const a3 = await start(3, { api: true, worker: false });
      apis = [first.url, a3.url];
      await progressed(90);
      apis = [a3.url];
      await progressed(120);
      await drained(first.url);
      await stop(first);
      await sendFromClient(10); // still served: the queue of 1 is drained by the workers of 3
      await progressed(180);
      // No worker announces 1 any more, its queue stays empty: the count is retired, and the
      // producer still on it is refused with a clear error instead of waiting for nobody.
      await until('1 retired', async () => (await announced()).join() === '3');
      // Its view of the key may be up to 5 s old: what it sends meanwhile is still run.
      let refused: unknown;
      for (const order of CLIENT_ORDERS) {
        try {
          clientSent.push(
            (await oldClient.acceptOrder({ order_id: order, reviewer_id: 100 }, { brokerageId: 1, commandId: `up-${order}` })).commandId,
          );
          await new Promise((r) => setTimeout(r, 500));
        } catch (err) {
          refused = err;
          break;
        }
      }
      expect(refused).toBeInstanceOf(ShardCountMismatch);
      expect((refused as Error).message).toMatch(/over 1 shard\(s\).*consume 3/);

      // 3 → 6 the same way.
      const w6 = await start(6, { api: false, worker: true });
      await until('6 announced', async () => (await announced()).join() === '3,6');
      const a6 = await start(6, { api: true, worker: false });
      apis = [a3.url, a6.url];
      await progressed(260);
      apis = [a6.url];
      await progressed(290);
      await drained(a3.url);
      await stop(a3);
      await stop(w3);
      await until('3 retired', async () => (await announced()).join() === '6');
      expect(w6.config.COMMAND_SHARDS).toBe(6);
    } finally {
      stopLoad = true;
      await load;
      await oldClient.close();
    }

    // Every call was answered 200 (or 202, then finished): none lost, none refused.
    expect(answers.filter((a) => a.status !== 200 && a.status !== 202)).toEqual([]);
    const taken = answers.length + clientSent.length;
    await until(
      'every command finished',
      async () => (await sql()`select count(*)::int as n from commands where result_status is not null`)[0]!.n === taken,
    );
    const finished = await sql()`select status, result_status, attempts from commands`;
    expect(finished.length).toBe(taken);
    // Exactly once: every command succeeded, and its handler committed once.
    expect(finished.filter((c) => c.status !== 'succeeded' || c.result_status !== 200 || c.attempts !== 1)).toEqual([]);
    // And every effect once: one shipment row per accept and per update, three events per order.
    const completedOrders = [...new Set(answers.filter((a) => a.step === 'complete').map((a) => a.order))];
    const rows =
      await sql()`select order_id, count(*)::int as n from shipments where order_id in ${sql()(completedOrders)} group by order_id`;
    expect(rows.every((r) => r.n === 2)).toBe(true);
    const events =
      await sql()`select order_id, count(*)::int as n from shipment_events where order_id in ${sql()(completedOrders)} group by order_id`;
    expect(events.every((r) => r.n === 3)).toBe(true);
    expect(completedOrders.length).toBeGreaterThanOrEqual(90);
    // The retired counts' queues are empty.
    const connection = blockingConnection(cluster.url);
    try {
      for (const place of [...commandShardPlaces(`{${prefix}}`, 1), ...commandShardPlaces(`{${prefix}}`, 3)]) {
        const queue = new Queue(place.name, { prefix: place.prefix, connection });
        const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized');
        await queue.close();
        expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(0);
      }
    } finally {
      connection.disconnect();
    }
  }, 300_000);

  it('answers 503 with the reason from an API process whose count the workers do not consume, and takes nothing', async () => {
    expect(await announced()).toEqual([6]);
    const wrong = await start(4, { api: true, worker: false });
    const answer = await apiClient(wrong.url)(SELLER, 'POST', `/v9/orders/${CLIENT_ORDERS.at(-1)}/accept`, { reviewer_id: 100 });
    expect(answer.status).toBe(503);
    expect(answer.body.errors[0]).toMatchObject({ code: 'unavailable' });
    expect(answer.body.errors[0].message).toMatch(/routes commands over 4 shard\(s\) \(COMMAND_SHARDS\), but the workers consume 6/);
    const rows = await sql()`select count(*)::int as n from commands where payload->>'order_id' = ${String(CLIENT_ORDERS.at(-1))}`;
    expect(rows[0]!.n).toBe(0);
    await stop(wrong);
  });
});
