import { Queue } from 'bullmq';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FulfilmentClient } from '@fulfil/client';
import { ShardCountMismatch, blockingConnection } from '@fulfil/client/transport';
import { commandShardPlace, eventsStreamKey, keySlot, shardCountsKey, webhooksPlace, type QueuePlace } from '@fulfil/contract';
import { shardOfId } from '@fulfil/contract';
import { WEBHOOKS_QUEUE } from '../../src/webhooks/webhook-queue.ts';
import { apiClient, BUYER_PICKUP_BODY, SELLER_PICKUP_BODY } from '../support/api.ts';
import { streamMessages } from '../support/events-stream.ts';
import { baseFixture, BUYER, ORDERS, SELLER } from '../support/fixtures.ts';
import { expectEachOnceInOrder, startPartyEndpoints } from '../support/party-webhooks.ts';
import { loadBetween, masterLoads, startRedisCluster, type PrivateCluster } from '../support/redis-cluster.ts';
import { startTestService, type TestService } from '../support/service.ts';

// The whole service on a real three-master Redis Cluster made here, with the command queues
// sharded (COMMAND_SHARDS 3, the default on a cluster, then 6): API, workers, the relay, recovery
// and the producer client reach it by REDIS_URL=redis+cluster://…, and INFO commandstats / INFO
// cpu of each master show that every master serves a share of the traffic. Webhooks go out to
// real receivers from their queue on a tag of its own.

async function until(what: string, check: () => Promise<boolean>, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Which master (by port) serves each slot range. */
async function slotOwners(port: number): Promise<Array<{ from: number; to: number; port: number }>> {
  const node = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  try {
    const slots = await node.cluster('SLOTS');
    return slots.map(([from, to, master]) => ({ from, to, port: master![1] }));
  } finally {
    node.disconnect();
  }
}

/** 36 order ids from 900 on, the same number on every shard: the test is of the placement, not of the hash's luck with few ids. */
function balancedOrders(shards: number): number[] {
  const per = 36 / shards;
  const taken = new Map<number, number>();
  const ids: number[] = [];
  for (let id = 900; ids.length < 36; id++) {
    const shard = shardOfId(id, shards);
    if ((taken.get(shard) ?? 0) >= per) continue;
    taken.set(shard, (taken.get(shard) ?? 0) + 1);
    ids.push(id);
  }
  return ids;
}

for (const shards of [3, 6]) {
  describe(`on a Redis Cluster with COMMAND_SHARDS=${shards}`, () => {
    const FLOW_ORDERS = balancedOrders(shards);
    const WEBHOOK_ORDERS = Array.from({ length: 12 }, (_, i) => 800 + i);
    let cluster: PrivateCluster;
    let t: TestService;
    let call: ReturnType<typeof apiClient>;
    let client: FulfilmentClient;
    let owners: Awaited<ReturnType<typeof slotOwners>>;

    const masterOf = (tag: string) => owners.find((o) => keySlot(tag) >= o.from && keySlot(tag) <= o.to)!.port;
    const tagOf = (place: QueuePlace) => /\{([^{}]+)\}/.exec(place.prefix)![1]!;
    const sql = () => t.db.database.sql!;
    /** The shards whose command queue holds a job of this id. */
    const shardsHolding = async (jobId: string) => {
      const connection = blockingConnection(cluster.url);
      const holding: number[] = [];
      try {
        for (let i = 0; i < shards; i++) {
          const place = commandShardPlace(t.config.QUEUE_PREFIX, i, shards);
          const queue = new Queue(place.name, { prefix: place.prefix, connection });
          if (await queue.getJob(jobId)) holding.push(i);
          await queue.close();
        }
      } finally {
        connection.disconnect();
      }
      return holding;
    };

    /** Accept, switch to XMobileLink, complete: three events, created, updated and completed. */
    const linkFlow = async (order: number) => {
      const accepted = await call(SELLER, 'POST', `/v9/orders/${order}/accept`, { reviewer_id: 100 });
      expect(accepted.status).toBe(200);
      const shipment = accepted.body.shipments[0].id as number;
      // The shipment id carries its order's residue: its commands go to the order's shard.
      expect(shardOfId(shipment, shards)).toBe(shardOfId(order, shards));
      const updated = await call(SELLER, 'PUT', `/v9/shipments/${shipment}`, { mobile_transfer_type: 'XMobileLink' });
      expect(updated.status).toBe(200);
      expect(shardOfId(updated.body.id, shards)).toBe(shardOfId(order, shards));
      const completed = await call(SELLER, 'PUT', `/v9/shipments/${updated.body.id}/complete`, {
        x_mobile_link: 'https://claim.example.test/c',
      });
      expect(completed.body).toMatchObject({ state: 'delivered' });
    };

    beforeAll(async () => {
      cluster = await startRedisCluster(3);
      owners = await slotOwners(cluster.ports[0]!);
      t = await startTestService({
        env: {
          REDIS_URL: cluster.url,
          RELAY_INTERVAL_MS: '50',
          EVENTS_STREAM: 'on',
          RECOVERY_EVERY_MS: '2000',
          RECOVERY_AFTER_MS: '60000',
          // The receivers are on loopback; retries come quickly so a refused delivery is retried within the test.
          WEBHOOK_ALLOW_PRIVATE: 'true',
          WEBHOOK_BACKOFF_BASE_MS: '20',
          WEBHOOK_BACKOFF_MAX_MS: '200',
          ...(shards === 3 ? {} : { COMMAND_SHARDS: String(shards) }),
        },
      });
      const fixture = baseFixture([760, 761, 762, ...FLOW_ORDERS, ...WEBHOOK_ORDERS]);
      await t.seed(fixture);
      call = apiClient(t.url);
      client = new FulfilmentClient({ redisUrl: cluster.url, prefix: t.prefix, commandShards: shards, defaultTimeoutMs: 15_000 });
    }, 120_000);
    afterAll(async () => {
      await client?.close();
      await t?.stop();
      await cluster?.stop();
    });

    it('places the command shards evenly over the three masters, the other queues on tags of their own', async () => {
      expect(owners.map((o) => o.port).sort()).toEqual([...cluster.ports].sort());
      expect(t.config.COMMAND_SHARDS).toBe(shards);
      const perMaster = new Map<number, number>();
      for (let i = 0; i < shards; i++) {
        const port = masterOf(tagOf(commandShardPlace(t.config.QUEUE_PREFIX, i, shards)));
        perMaster.set(port, (perMaster.get(port) ?? 0) + 1);
      }
      expect([...perMaster.values()]).toEqual([shards / 3, shards / 3, shards / 3]);
      expect(eventsStreamKey(t.config.QUEUE_PREFIX)).toBe(`{${t.prefix}.events}:events`);
      expect(webhooksPlace(t.config.QUEUE_PREFIX, WEBHOOKS_QUEUE).prefix).toBe(`{${t.prefix}.webhooks}`);
      // The workers announced their count in the well-known key the producers check.
      const node = blockingConnection(cluster.url) as Cluster;
      try {
        await until(
          'the shard count announced',
          async () => Object.keys(await node.hgetall(shardCountsKey(t.config.QUEUE_PREFIX))).length > 0,
        );
        expect(Object.keys(await node.hgetall(shardCountsKey(t.config.QUEUE_PREFIX)))).toEqual([String(shards)]);
      } finally {
        node.disconnect();
      }
    });

    it('runs link delivery on 36 orders, every master serving 20–47 % of the calls', async () => {
      const before = await masterLoads(cluster.ports);
      for (let i = 0; i < FLOW_ORDERS.length; i += 6) await Promise.all(FLOW_ORDERS.slice(i, i + 6).map(linkFlow));
      const load = loadBetween(before, await masterLoads(cluster.ports));
      console.log(
        `COMMAND_SHARDS=${shards}: ${load.map((l) => `:${l.port} ${(l.callShare * 100).toFixed(1)} % of calls, ${(l.cpuShare * 100).toFixed(1)} % of CPU`).join('; ')}`,
      );
      if (process.env.SHOW_CALLS) console.log(JSON.stringify(load.map((l) => l.byCommand)));
      for (const master of load) {
        expect(master.callShare).toBeGreaterThanOrEqual(0.2);
        expect(master.callShare).toBeLessThanOrEqual(0.47);
      }
      const states = await sql()`select state from orders where id in ${sql()(FLOW_ORDERS)}`;
      expect(states.every((r) => r.state === 'completed')).toBe(true);
      // Every shard took some of the orders.
      expect(new Set(FLOW_ORDERS.map((o) => shardOfId(o, shards))).size).toBe(shards);
    }, 120_000);

    it('runs transfer, flash and a local pickup joined from both parties', async () => {
      const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd2}/accept`, { reviewer_id: 100 });
      const transfer = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'XMobile' });
      expect(transfer.body).toMatchObject({ type: 'XMobile', ship_to_name: 'Bo Buyer' });
      expect((await call(SELLER, 'PUT', `/v9/shipments/${transfer.body.id}/complete`, {})).body).toMatchObject({ state: 'delivered' });
      const flash = await call(SELLER, 'POST', `/v9/orders/${ORDERS.flash}/accept`, { reviewer_id: 100 });
      expect((await call(SELLER, 'PUT', `/v9/shipments/${flash.body.shipments[0].id}/complete`)).body).toMatchObject({
        state: 'delivered',
      });
      const lp = await call(SELLER, 'POST', `/v9/orders/${ORDERS.localPickup}/accept`, { reviewer_id: 100 });
      const buyer = await call(BUYER, 'PUT', `/v9/shipments/${lp.body.shipments[0].id}`, BUYER_PICKUP_BODY);
      expect(buyer.status).toBe(200);
      const seller = await call(SELLER, 'PUT', `/v9/shipments/${buyer.body.id}`, SELLER_PICKUP_BODY);
      expect(seller.status).toBe(200);
      const read = await call(BUYER, 'GET', `/v9/shipments/${seller.body.id}`);
      expect(read.body).toMatchObject({ type: 'LocalPickup', ship_to_name: 'Bo Buyer', ship_from_name: 'Sam Seller' });
    });

    it('replays an Idempotency-Key with the first answer and changes nothing', async () => {
      const headers = { 'idempotency-key': `cluster-704-${shards}` };
      const first = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd3}/accept`, { reviewer_id: 100 }, headers);
      const again = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd3}/accept`, { reviewer_id: 100 }, headers);
      expect(first.status).toBe(200);
      expect(again).toMatchObject({ status: 200, body: first.body });
      const queued = await call(
        SELLER,
        'POST',
        `/v9/orders/${ORDERS.tbd3}/accept`,
        { reviewer_id: 100 },
        { ...headers, prefer: 'respond-async' },
      );
      expect([200, 202]).toContain(queued.status);
      expect((await sql()`select count(*)::int as n from shipments where order_id = ${ORDERS.tbd3}`)[0]!.n).toBe(1);
    });

    it('takes commands from the producer client on the same shards, and refuses a client with another count', async () => {
      const accepted = await client.acceptOrder({ order_id: 760, reviewer_id: 100 }, { brokerageId: 1, await: true, commandId: 'cl-760' });
      expect(accepted).toMatchObject({ commandId: 'cl-760', status: 200, body: { id: 760, state: 'accepted' } });
      expect(await client.acceptOrder({ order_id: 760, reviewer_id: 100 }, { brokerageId: 1, await: true, commandId: 'cl-760' })).toEqual(
        accepted,
      );
      const shipment = (accepted as { body: { shipments: Array<{ id: number }> } }).body.shipments[0]!.id;
      const updated = await client.updateShipment(
        { shipment_id: shipment, mobile_transfer_type: 'XMobile' },
        { brokerageId: 1, await: true, commandId: 'cl-760-update' },
      );
      expect(updated).toMatchObject({ status: 200, body: { type: 'XMobile' } });
      const done = await client.completeShipment(
        { shipment_id: (updated as { body: { id: number } }).body.id },
        { brokerageId: 1, await: true, commandId: 'cl-760-complete' },
      );
      expect(done).toMatchObject({ status: 200, body: { state: 'delivered' } });
      // The job sits in the queue of the order's shard, and in no other.
      expect(await shardsHolding('cl-760-complete')).toEqual([shardOfId(760, shards)]);
      expect(await client.acceptOrder({ order_id: 761, reviewer_id: 100 }, { brokerageId: 1, commandId: 'cl-761' })).toEqual({
        commandId: 'cl-761',
      });
      await until(
        'the fire-and-forget command to run',
        async () => (await sql()`select status from commands where id = 'cl-761'`)[0]?.status === 'succeeded',
      );

      const wrong = new FulfilmentClient({ redisUrl: cluster.url, prefix: t.prefix, commandShards: shards + 1 });
      try {
        const refused = await wrong
          .acceptOrder({ order_id: 762, reviewer_id: 100 }, { brokerageId: 1, commandId: 'cl-762' })
          .catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(ShardCountMismatch);
        expect((refused as Error).message).toMatch(new RegExp(`routes commands over ${shards + 1} shard\\(s\\).*consume ${shards}\\b`));
      } finally {
        await wrong.close();
      }
      expect(await sql()`select id from commands where id = 'cl-762'`).toEqual([]);
    });

    it('recovers a command Redis lost into the queue of its shard', async () => {
      const actor = { brokerageId: 1, userId: 100, via: 'api' };
      // Taken by the API (row in Postgres), its job then lost: only Postgres knows it.
      await sql()`insert into commands (id, name, brokerage_id, request_hash, payload, actor, created_at)
        values ('lost-762', 'order.accept', 1, 'h762', ${JSON.stringify({ order_id: 762, reviewer_id: 100 })}::jsonb,
                ${JSON.stringify(actor)}::jsonb, now() - interval '10 minutes')`;
      await until(
        'the lost command recovered and run',
        async () => (await sql()`select status from commands where id = 'lost-762'`)[0]?.status === 'succeeded',
        60_000,
      );
      expect(await shardsHolding('lost-762')).toEqual([shardOfId(762, shards)]);
      expect((await sql()`select state from orders where id = 762`)[0]!.state).toBe('accepted');
    }, 70_000);

    it('delivers webhooks to both parties from the webhook queue’s own tag: each event once per endpoint, in order, signed', async () => {
      // Earlier events fanned out first: they are owed to no endpoint, so the receivers get only these orders'.
      await until(
        'outbox drained',
        async () => (await sql()`select count(*)::int as n from event_feed where position is null`)[0]!.n === 0,
      );
      // The seller's receiver refuses every fifth request, so retries (delayed jobs) run on the cluster too.
      const { parties, close } = await startPartyEndpoints(call, { seller: (_r, n) => (n % 5 === 0 ? 503 : 200) });
      try {
        for (let i = 0; i < WEBHOOK_ORDERS.length; i += 6) await Promise.all(WEBHOOK_ORDERS.slice(i, i + 6).map(linkFlow));
        // A receiver counts a delivery when it answers; fulfil records it a moment later.
        const recorded = async () =>
          (
            await sql()`select count(*)::int as n from webhook_deliveries
              where order_id in ${sql()(WEBHOOK_ORDERS)} and delivered_at is not null`
          )[0]!.n as number;
        await until('every delivery recorded', async () => (await recorded()) === WEBHOOK_ORDERS.length * 3 * 2, 60_000);
        for (const p of parties) {
          expectEachOnceInOrder(p, WEBHOOK_ORDERS, ['shipment.created', 'shipment.updated', 'shipment.completed']);
        }
        expect(parties[0]!.receiver.all.length).toBeGreaterThan(parties[0]!.receiver.acknowledged.length);

        // Every key of the webhook queue, wherever it might have gone, is in the slot of its tag, on the
        // master serving that slot.
        // The tag as documented (docs/SCALING.md), not as placement.ts derives it: this checks the derivation.
        const tag = `${t.prefix}.webhooks`;
        const found: Array<{ port: number; slot: number }> = [];
        for (const port of cluster.ports) {
          const node = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
          try {
            let cursor = '0';
            do {
              const [next, keys] = await node.scan(cursor, 'MATCH', `*${t.prefix}*:${WEBHOOKS_QUEUE}:*`, 'COUNT', 1000);
              cursor = next;
              for (const k of keys) found.push({ port, slot: Number(await node.cluster('KEYSLOT', k)) });
            } while (cursor !== '0');
          } finally {
            node.disconnect();
          }
        }
        expect(found.length).toBeGreaterThan(0);
        expect(new Set(found.map((f) => `${f.port} ${f.slot}`))).toEqual(new Set([`${masterOf(tag)} ${keySlot(tag)}`]));
      } finally {
        await close();
      }
    }, 90_000);

    it('relays every event, in order per order, to the events stream on its own tag', async () => {
      await until(
        'outbox drained',
        async () => (await sql()`select count(*)::int as n from event_feed where position is null`)[0]!.n === 0,
        50_000,
      );
      const connection = blockingConnection(cluster.url) as Cluster;
      try {
        const events = await streamMessages(connection, t.config.QUEUE_PREFIX);
        const seqOf = (orderId: number) => events.filter((e) => e.order_id === orderId);
        for (const order of FLOW_ORDERS) {
          expect(seqOf(order).map((e) => [e.seq, e.kind])).toEqual([
            [1, 'created'],
            [2, 'updated'],
            [3, 'completed'],
          ]);
        }
        expect(seqOf(ORDERS.localPickup).map((e) => e.kind)).toEqual(['created', 'pickup_details', 'delivered']);
        // Every event written, and nothing else: each event row went through the outbox, now drained.
        expect(events).toHaveLength((await sql()`select count(*)::int as n from shipment_events`)[0]!.n);

        // Keys by slot: each queue's keys share one slot, and the service's keys span several masters.
        const slotsByTag = new Map<string, Set<number>>();
        const masters = new Set<string>();
        for (const node of connection.nodes('master')) {
          let cursor = '0';
          do {
            const [next, found] = await node.scan(cursor, 'MATCH', `*${t.prefix}*`, 'COUNT', 1000);
            cursor = next;
            for (const k of found) {
              masters.add(`${node.options.port}`);
              const tag = /\{([^{}]+)\}/.exec(k)?.[1] ?? k;
              if (!slotsByTag.has(tag)) slotsByTag.set(tag, new Set());
              slotsByTag.get(tag)!.add(Number(await node.cluster('KEYSLOT', k)));
            }
          } while (cursor !== '0');
        }
        expect(masters.size).toBe(3);
        for (const [tag, slots] of slotsByTag) if (tag.startsWith(t.prefix)) expect(slots.size).toBe(1);
        // The rate limiter's counters carry no tag: each hashes on its own name.
        expect([...slotsByTag.keys()].some((k) => k.includes(':ratelimit:'))).toBe(true);
      } finally {
        connection.disconnect();
      }
    }, 60_000);
  });
}
