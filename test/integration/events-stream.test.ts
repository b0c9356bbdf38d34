import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsStreamKey, parseEventStreamEntry, type EventMessage } from '@fulfil/contract';
import { apiClient, BUYER_PICKUP_BODY, SELLER_PICKUP_BODY } from '../support/api.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, BUYER, ORDERS, SELLER } from '../support/fixtures.ts';
import { outboxWaiting, writeOutboxEvents, type OutboxEvent } from '../support/outbox-events.ts';
import { startTestService, type TestService } from '../support/service.ts';

// The events channel in Redis with no consumer must stay bounded: off by default (nothing written),
// and when on, a stream trimmed to EVENTS_STREAM_MAXLEN whatever the number of events. Every
// consumer group reads every event. Real Redis and Postgres; the relay of a worker role.

async function until(what: string, check: () => Promise<boolean>, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** `n` events as the commands write them (a realistic message, about 400 bytes, built from the event row). */
let nextOrder = 100_000;
async function writeEvents(t: TestService, n: number): Promise<string[]> {
  const sql = t.db.database.sql!;
  const events = Array.from({ length: n }, (): OutboxEvent => {
    const order = nextOrder++;
    return { orderId: order, seq: 1, newShipmentId: 5_000_000 + order, toType: 'TBD', toState: 'pending' };
  });
  const { eventIds } = await writeOutboxEvents(sql, events);
  await until('the outbox to drain', async () => (await outboxWaiting(sql)) === 0);
  return eventIds;
}

/**
 * Keys under the prefix, less the housekeeping queue's (its scheduled jobs come and go with the
 * clock). Counted once the worker has settled: its queues make their keys as they first poll.
 */
async function keysUnder(redis: Redis, prefix: string): Promise<number> {
  let n = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 1000);
    cursor = next;
    n += keys.filter((k) => !k.includes(':fulfil-housekeeping:')).length;
  } while (cursor !== '0');
  return n;
}

async function settledKeys(t: TestService, redis: Redis): Promise<number> {
  await writeEvents(t, 10);
  await new Promise((r) => setTimeout(r, 1_000));
  return keysUnder(redis, t.prefix);
}

describe('the events channel in Redis', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  });
  afterAll(() => redis?.disconnect());

  it('is off by default: thousands of events with no consumer leave nothing in Redis', async () => {
    const t = await startTestService({ roles: { api: false, worker: true }, env: { RELAY_INTERVAL_MS: '20' } });
    try {
      const before = await settledKeys(t, redis);
      await writeEvents(t, 2_000);
      expect(await redis.exists(eventsStreamKey(t.prefix))).toBe(0);
      // The worker's own queues only: nothing per event.
      expect(await keysUnder(redis, t.prefix)).toBe(before);
    } finally {
      await t.stop();
    }
  }, 120_000);

  it('when on, is one stream trimmed to EVENTS_STREAM_MAXLEN however many events are relayed', async () => {
    const MAXLEN = 200;
    const t = await startTestService({
      roles: { api: false, worker: true },
      env: { RELAY_INTERVAL_MS: '20', EVENTS_STREAM: 'on', EVENTS_STREAM_MAXLEN: String(MAXLEN) },
    });
    try {
      const key = eventsStreamKey(t.prefix);
      const before = await settledKeys(t, redis);
      await writeEvents(t, 1_000);
      const usageAt1k = Number(await redis.memory('USAGE', key));
      const last = (await writeEvents(t, 2_000)).at(-1);
      // MAXLEN ~ trims whole nodes of the stream's radix tree: at most one node's entries over.
      const node = Number((await redis.config('GET', 'stream-node-max-entries'))[1]);
      const length = await redis.xlen(key);
      expect(length).toBeGreaterThanOrEqual(MAXLEN);
      expect(length).toBeLessThanOrEqual(MAXLEN + node);
      // Three times the events, the same memory: it depends on MAXLEN, not on how many went through.
      const usage = Number(await redis.memory('USAGE', key));
      expect(usage).toBeLessThan(usageAt1k * 1.5);
      expect(usage / length).toBeLessThan(600);
      expect(await keysUnder(redis, t.prefix)).toBe(before);
      // The newest events are the ones kept, last relayed last.
      const [[, fields]] = (await redis.xrevrange(key, '+', '-', 'COUNT', 1)) as [[string, string[]]];
      expect(parseEventStreamEntry(fields).event_id).toBe(last);
    } finally {
      await t.stop();
    }
  }, 120_000);

  it('every consumer group sees every event of real commands, in order per order; XRANGE replays them', async () => {
    const t = await startTestService({ env: { RELAY_INTERVAL_MS: '20', EVENTS_STREAM: 'on' } });
    const key = eventsStreamKey(t.prefix);
    try {
      // Groups made before the events, reading from their start ($): each gets its own copy.
      for (const group of ['billing', 'analytics']) await redis.xgroup('CREATE', key, group, '$', 'MKSTREAM');
      await t.seed(baseFixture());
      const call = apiClient(t.url);
      const tbd = (await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 })).body.shipments[0].id;
      const link = (await call(SELLER, 'PUT', `/v9/shipments/${tbd}`, { mobile_transfer_type: 'XMobileLink' })).body.id;
      await call(SELLER, 'PUT', `/v9/shipments/${link}/complete`, { x_mobile_link: 'https://x.test/c' });
      const lp = (await call(SELLER, 'POST', `/v9/orders/${ORDERS.localPickup}/accept`, { reviewer_id: 100 })).body.shipments[0].id;
      const lp2 = (await call(BUYER, 'PUT', `/v9/shipments/${lp}`, BUYER_PICKUP_BODY)).body.id;
      await call(SELLER, 'PUT', `/v9/shipments/${lp2}`, SELLER_PICKUP_BODY);

      const readGroup = async (group: string) => {
        const seen: EventMessage[] = [];
        await until(`group ${group} to read six events`, async () => {
          const got = (await redis.xreadgroup('GROUP', group, 'one', 'COUNT', 100, 'STREAMS', key, '>')) as Array<
            [string, Array<[string, string[]]>]
          > | null;
          for (const [id, fields] of got?.[0]?.[1] ?? []) {
            seen.push(parseEventStreamEntry(fields));
            await redis.xack(key, group, id);
          }
          return seen.length >= 6;
        });
        return seen.map((e) => [e.order_id, e.seq, e.kind]);
      };
      const expected = [
        [ORDERS.tbd, 1, 'created'],
        [ORDERS.tbd, 2, 'updated'],
        [ORDERS.tbd, 3, 'completed'],
        [ORDERS.localPickup, 1, 'created'],
        [ORDERS.localPickup, 2, 'pickup_details'],
        [ORDERS.localPickup, 3, 'delivered'],
      ];
      const sorted = (events: unknown[][]) => [...events].sort((a, b) => Number(a[0]) - Number(b[0]) || Number(a[1]) - Number(b[1]));
      const billing = await readGroup('billing');
      const analytics = await readGroup('analytics');
      expect(sorted(billing)).toEqual(sorted(expected));
      expect(analytics).toEqual(billing);
      for (const order of [ORDERS.tbd, ORDERS.localPickup]) {
        expect(billing.filter((e) => e[0] === order).map((e) => e[1])).toEqual([1, 2, 3]);
      }
      // A consumer without a group replays from any id: from the start, here.
      const replay = (await redis.xrange(key, '-', '+')).map(([, fields]) => parseEventStreamEntry(fields));
      expect(replay.map((e) => [e.order_id, e.seq, e.kind])).toEqual(billing);
      expect(await redis.xpending(key, 'billing')).toEqual([0, null, null, null]);
    } finally {
      await t.stop();
    }
  }, 120_000);
});
