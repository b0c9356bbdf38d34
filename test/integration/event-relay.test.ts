import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, BUYER_PICKUP_BODY, SELLER_PICKUP_BODY } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, BUYER, ORDERS, SELLER } from '../support/fixtures.ts';
import { streamMessages } from '../support/events-stream.ts';
import { outboxWaiting, writeOutboxEvents, type OutboxEvent } from '../support/outbox-events.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, type TestService } from '../support/service.ts';

async function until(what: string, check: () => Promise<boolean>, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('event stream', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  });
  afterAll(() => redis?.disconnect());

  async function publishedEvents(prefix: string) {
    return (await streamMessages(redis, prefix)) as Record<string, any>[];
  }

  it('every transition of a flow yields exactly the expected events, in order', async () => {
    const t: TestService = await startTestService({ env: { RELAY_INTERVAL_MS: '20', EVENTS_STREAM: 'on' } });
    try {
      await t.seed(baseFixture());
      const call = apiClient(t.url);
      const tbd = (await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 })).body.shipments[0].id;
      const link = (await call(SELLER, 'PUT', `/v9/shipments/${tbd}`, { mobile_transfer_type: 'XMobileLink' })).body.id;
      await call(SELLER, 'PUT', `/v9/shipments/${link}/complete`, { x_mobile_link: 'https://x.test/c' });
      const lp = (await call(SELLER, 'POST', `/v9/orders/${ORDERS.localPickup}/accept`, { reviewer_id: 100 })).body.shipments[0].id;
      const lp2 = (await call(BUYER, 'PUT', `/v9/shipments/${lp}`, BUYER_PICKUP_BODY)).body.id;
      const lp3 = (await call(SELLER, 'PUT', `/v9/shipments/${lp2}`, SELLER_PICKUP_BODY)).body.id;

      await until('outbox drained', async () => (await outboxWaiting(t.db.database.sql!)) === 0);
      const events = await publishedEvents(t.prefix);
      expect(events).toHaveLength(6);
      for (const e of events) {
        expect(e.entryEventId).toBe(e.event_id);
        expect(e.topic).toBe('shipment.transition');
        expect(e.at).toMatch(/Z$/);
        expect(e.command_id).toMatch(/^c-/);
      }
      const pick = (orderId: number) =>
        events
          .filter((e) => e.order_id === orderId)
          .map((e) => [e.seq, e.kind, e.shipment_id, e.new_shipment_id, e.from_type, e.from_state, e.to_type, e.to_state, e.actor.role]);
      expect(pick(ORDERS.tbd)).toEqual([
        [1, 'created', null, tbd, null, null, 'TBD', 'pending', 'seller'],
        [2, 'updated', tbd, link, 'TBD', 'pending', 'XMobileLink', 'pending', 'seller'],
        [3, 'completed', link, link, 'XMobileLink', 'pending', 'XMobileLink', 'delivered', 'seller'],
      ]);
      expect(pick(ORDERS.localPickup)).toEqual([
        [1, 'created', null, lp, null, null, 'LocalPickup', 'pending', 'seller'],
        [2, 'pickup_details', lp, lp2, 'LocalPickup', 'pending', 'LocalPickup', 'pending', 'buyer'],
        [3, 'delivered', lp2, lp3, 'LocalPickup', 'pending', 'LocalPickup', 'delivered', 'seller'],
      ]);
    } finally {
      await t.stop();
    }
  });

  it('a relay killed mid-stream and restarted loses and reorders nothing', async () => {
    const db: TestDatabase = await createTestDatabase();
    const prefix = testPrefix();
    const ORDER_COUNT = 20;
    const PER_ORDER = 150;
    try {
      // Interleaved events of many orders, as concurrent commands would leave them.
      const rows: OutboxEvent[] = [];
      for (let seq = 1; seq <= PER_ORDER; seq++) {
        for (let order = 1; order <= ORDER_COUNT; order++) rows.push({ orderId: order, seq });
      }
      const sql = db.database.sql!;
      await writeOutboxEvents(sql, rows);
      const relayed = async () => rows.length - (await outboxWaiting(sql));

      const child = spawn(process.execPath, ['bin/fulfil.mjs', 'start', '--role', 'worker'], {
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: db.url,
          REDIS_URL: TEST_REDIS_URL,
          QUEUE_PREFIX: prefix,
          LOG_LEVEL: 'silent',
          RELAY_BATCH_SIZE: '7',
          RELAY_INTERVAL_MS: '10',
          EVENTS_STREAM: 'on',
          FULFIL_SECRET_KEY: 'ab'.repeat(32),
          DATA_DIR: `/tmp/fulfil-relay-${prefix}`,
        },
        stdio: 'ignore',
      });
      const exited = new Promise((r) => child.once('exit', r));
      await until('the relay to start publishing', async () => (await relayed()) > 0, 60_000);
      child.kill('SIGKILL');
      await exited;
      const atKill = await relayed();
      expect(atKill).toBeLessThan(rows.length); // really mid-stream

      const second = await startTestService({
        db,
        prefix,
        roles: { api: false, worker: true },
        env: { RELAY_BATCH_SIZE: '50', RELAY_INTERVAL_MS: '10', EVENTS_STREAM: 'on' },
      });
      try {
        await until('the outbox to drain', async () => (await relayed()) === rows.length, 60_000);
      } finally {
        await second.stop();
      }

      const events = await publishedEvents(prefix);
      const seen = new Set<string>();
      const lastSeq = new Map<number, number>();
      for (const e of events) {
        if (seen.has(e.event_id)) continue; // consumers dedupe by event id
        seen.add(e.event_id);
        expect(e.seq).toBe((lastSeq.get(e.order_id) ?? 0) + 1);
        lastSeq.set(e.order_id, e.seq);
      }
      expect(seen.size).toBe(rows.length);
      expect([...lastSeq.values()]).toEqual(Array(ORDER_COUNT).fill(PER_ORDER));
    } finally {
      await dropPrefix(prefix);
      await db.drop();
    }
  }, 120_000);
});
