import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRedis, type ResolvedRedis } from '../../src/redis/resolve.ts';
import { TimerQueue, timerJobId } from '../../src/timers/deadline-timers.ts';
import { apiClient } from '../support/api.ts';
import { baseFixture, BUYER, SELLER } from '../support/fixtures.ts';
import { openApiChecker } from '../support/openapi-check.ts';
import { startPartyEndpoints } from '../support/party-webhooks.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { until } from '../support/webhook-receiver.ts';

// The durable clock: an open order's reminder and deadline each emit their event once, as a
// system event, to both parties, also when Redis loses every timer in between (FLUSHALL, on a
// Redis of this file's own); a completed order emits neither; moving the in-hand date moves both
// timers. Deadlines are seconds ahead (explicit deliver_by), the reminder 2 s before them.

const DUE = 800;
const ALSO_DUE = 801;
const COMPLETED = 802;
const MOVED = 803;
const REMINDER_MS = 2_000;

describe('deadline timers', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let redis: ResolvedRedis;
  let dataDir: string;
  let timers: TimerQueue;
  let endpoints: Awaited<ReturnType<typeof startPartyEndpoints>>;
  let deliverBy: number;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-timers-redis-'));
    redis = await resolveRedis({ dataDir, probeLocal: false });
    t = await startTestService({
      env: {
        REDIS_URL: redis.url,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        RELAY_INTERVAL_MS: '50',
        WEBHOOK_SWEEP_EVERY_MS: '300',
        TIMER_SWEEP_EVERY_MS: '300',
        DUE_SOON_BEFORE_MS: String(REMINDER_MS),
      },
    });
    call = apiClient(t.url);
    timers = new TimerQueue({ prefix: t.prefix, connection: new Redis(redis.url, { maxRetriesPerRequest: null }) });
    deliverBy = Date.now() + 5_000;
    const fixture = baseFixture([DUE, ALSO_DUE, COMPLETED, MOVED]);
    const at = new Date(deliverBy).toISOString();
    for (const o of fixture.orders as Array<Record<string, unknown>>) {
      if (o.id === DUE || o.id === ALSO_DUE || o.id === COMPLETED) o.deliver_by = at;
      if (o.id === MOVED) Object.assign(o, { in_hand_on: '2027-06-10', event_starts_at: '2027-06-12T23:00:00Z' });
    }
    await t.seed(fixture);
    endpoints = await startPartyEndpoints(call);
  });
  afterAll(async () => {
    await endpoints?.close();
    await timers?.close();
    await t?.stop();
    await redis?.private?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const kindsOf = async (orderId: number) =>
    ((await call(SELLER, 'GET', `/v9/orders/${orderId}/events`)).body.events as Array<{ kind: string }>).map((e) => e.kind);
  const count = (kinds: string[], kind: string) => kinds.filter((k) => k === kind).length;

  it('an order due in seconds emits due_soon and overdue once each, a FLUSHALL in between; a completed one neither', async () => {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${DUE}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const done = await call(SELLER, 'POST', `/v9/orders/${COMPLETED}/accept`, { reviewer_id: 100 });
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${done.body.shipments[0].id}`, { mobile_transfer_type: 'XMobileLink' });
    const completed = await call(SELLER, 'PUT', `/v9/shipments/${updated.body.id}/complete`, { x_mobile_link: 'https://t.example.test/c' });
    expect(completed.status).toBe(200);
    expect(Date.now()).toBeLessThan(deliverBy - REMINDER_MS);

    const read = await call(BUYER, 'GET', `/v9/orders/${DUE}`);
    expect(read.body).toMatchObject({ state: 'accepted', deliver_by: new Date(deliverBy).toISOString(), in_hand_on: null });

    await until('the reminder', async () => (await kindsOf(DUE)).includes('due_soon'), 15_000);
    expect(Date.now()).toBeGreaterThanOrEqual(deliverBy - REMINDER_MS);
    expect(Date.now()).toBeLessThan(deliverBy);
    // Redis loses every job, the deadline's included; the sweep arms it again from Postgres.
    const client = new Redis(redis.url);
    await client.flushall();
    client.disconnect();
    await until(
      'the deadline',
      async () => (await kindsOf(DUE)).includes('overdue') && (await kindsOf(ALSO_DUE)).includes('overdue'),
      20_000,
    );
    expect(Date.now()).toBeGreaterThanOrEqual(deliverBy);
    // Sweeps and re-armed jobs go on; nothing fires twice.
    await new Promise((r) => setTimeout(r, 1_500));
    for (const orderId of [DUE, ALSO_DUE]) {
      const kinds = await kindsOf(orderId);
      expect(count(kinds, 'due_soon'), `order ${orderId}`).toBe(1);
      expect(count(kinds, 'overdue'), `order ${orderId}`).toBe(1);
    }
    expect(await kindsOf(COMPLETED)).toEqual(['created', 'updated', 'completed']);

    const history = (await call(BUYER, 'GET', `/v9/orders/${DUE}/events`)).body.events;
    const overdue = history.find((e: { kind: string }) => e.kind === 'overdue');
    expect(overdue).toMatchObject({
      actor: { type: 'system', reason: 'deadline_passed' },
      command_id: null,
      to_type: 'TBD',
      details: { deliver_by: new Date(deliverBy).toISOString() },
    });
    expect(history.find((e: { kind: string }) => e.kind === 'due_soon').actor).toEqual({ type: 'system', reason: 'deadline_reminder' });
    // A pending order's events name no shipment.
    expect((await call(SELLER, 'GET', `/v9/orders/${ALSO_DUE}/events`)).body.events[0]).toMatchObject({ kind: 'due_soon', to_type: null });

    for (const p of endpoints.parties) {
      await until(`${p.party}: the deadline's webhooks`, () =>
        p.receiver.acknowledged.some((r) => r.body.order_id === DUE && r.body.type === 'shipment.overdue'),
      );
      const types = p.receiver.acknowledged.filter((r) => r.body.order_id === DUE).map((r) => r.body.type);
      expect(types, p.party).toEqual(['shipment.created', 'shipment.due_soon', 'shipment.overdue']);
      expect(p.receiver.acknowledged.some((r) => r.body.order_id === COMPLETED && /due_soon|overdue/.test(r.body.type))).toBe(false);
      const feed = (await call(p.credential, 'GET', '/v9/events?limit=1000')).body.events;
      expect(feed.filter((e: { order_id: number }) => e.order_id === DUE).map((e: { type: string }) => e.type)).toEqual(types);
    }
    // A finished order's timers are gone from Redis, and an open one's fired timers too.
    expect(await timers.queue.getJob(timerJobId(COMPLETED, 'overdue'))).toBeUndefined();
    expect(await timers.queue.getJob(timerJobId(DUE, 'overdue'))).toBeUndefined();
  }, 60_000);

  it('moving in_hand_on moves both timers, by the policy, and tells both parties', async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as Parameters<typeof openApiChecker>[0];
    const checker = openApiChecker(doc);
    // 20:00 New York (EDT) on 10 June.
    const first = Date.parse('2027-06-11T00:00:00Z');
    await until(
      'the sweep arms the seeded order',
      async () => (await timers.queue.getJob(timerJobId(MOVED, 'overdue')))?.data.dueAt === first,
    );
    expect((await timers.queue.getJob(timerJobId(MOVED, 'due_soon')))?.data.dueAt).toBe(first - REMINDER_MS);

    expect((await call(SELLER, 'PUT', `/v9/orders/${MOVED}`, { in_hand_on: '2027-06-13' })).body.errors[0]).toMatchObject({
      code: 'invalid_params',
      field: 'in_hand_on',
      message: "in_hand_on: 2027-06-13 lies after the event's day (2027-06-12)",
    });
    expect((await call(SELLER, 'PUT', `/v9/orders/${MOVED}`, { in_hand_on: '2027-02-30' })).body.errors[0].field).toBe('in_hand_on');
    expect((await call(BUYER, 'PUT', `/v9/orders/${MOVED}`, { in_hand_on: '2027-06-11' })).status).toBe(403);

    // The event's day (19:00 New York on 12 June): the evening before, 20:00 on the 11th.
    const moved = await call(SELLER, 'PUT', `/v9/orders/${MOVED}`, { in_hand_on: '2027-06-12' });
    checker.check('PUT', '/v9/orders/{id}', moved.status, moved.body);
    const second = Date.parse('2027-06-12T00:00:00Z');
    expect(moved.body).toMatchObject({ state: 'pending', in_hand_on: '2027-06-12', deliver_by: new Date(second).toISOString() });
    await until('both timers moved', async () => {
      const [soon, due] = await Promise.all([
        timers.queue.getJob(timerJobId(MOVED, 'due_soon')),
        timers.queue.getJob(timerJobId(MOVED, 'overdue')),
      ]);
      return soon?.data.dueAt === second - REMINDER_MS && due?.data.dueAt === second;
    });
    const due = (await timers.queue.getJob(timerJobId(MOVED, 'overdue')))!;
    expect(await due.getState()).toBe('delayed');
    expect(Math.abs(due.timestamp + (due.delay ?? 0) - second)).toBeLessThan(2_000);

    const history = (await call(BUYER, 'GET', `/v9/orders/${MOVED}/events`)).body.events;
    expect(history.at(-1)).toMatchObject({
      kind: 'in_hand_updated',
      actor: { type: 'party', role: 'seller' },
      details: {
        in_hand_on: '2027-06-12',
        deliver_by: new Date(second).toISOString(),
        previous_in_hand_on: '2027-06-10',
        previous_deliver_by: new Date(first).toISOString(),
      },
    });
    for (const p of endpoints.parties) {
      await until(`${p.party}: order.in_hand_updated`, () =>
        p.receiver.acknowledged.some((r) => r.body.order_id === MOVED && r.body.type === 'order.in_hand_updated'),
      );
    }
  }, 60_000);
});
