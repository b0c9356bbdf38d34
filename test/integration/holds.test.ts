import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRedis, type ResolvedRedis } from '../../src/redis/resolve.ts';
import { fireHoldReleaseIn } from '../../src/timers/hold-release-timer.ts';
import { apiClient } from '../support/api.ts';
import { baseFixture, BUYER, SELLER, STRANGER } from '../support/fixtures.ts';
import { openApiChecker } from '../support/openapi-check.ts';
import { startPartyEndpoints } from '../support/party-webhooks.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { b64, makePdf } from '../support/test-files.ts';
import { until } from '../support/webhook-receiver.ts';

// Holds: a venue_release_pending hold with release_at stops completion and the deadline timers,
// releases itself once (also across a FLUSHALL, and when its run is fired again), and moves
// deliver_by by the time held; an operator's fraud hold through `fulfil holds`; the limits and bad
// input (nothing changed); a handle answers its first hold; both parties' webhooks carry each step.
// Deadlines are seconds ahead (explicit deliver_by), the reminder 1 s before them.

const VENUE = 910;
const FRAUD = 911;
const LIMITS = 912;
const ONCE = 913;
const TWO = 914;
const REMINDER_MS = 1_000;
const OPS_TOKEN = 'ops-token-of-the-holds-test-0123456789abc';
const BIN = path.resolve(import.meta.dirname, '../../bin/fulfil.mjs');

interface Event {
  kind: string;
  seq: number;
  actor: Record<string, unknown>;
  details: Record<string, any>;
}

describe('holds', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let redis: ResolvedRedis;
  let dataDir: string;
  let endpoints: Awaited<ReturnType<typeof startPartyEndpoints>>;
  let check: (method: string, path: string, status: number, body: unknown) => void;
  let deliverBy: number;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-holds-redis-'));
    redis = await resolveRedis({ dataDir, probeLocal: false });
    t = await startTestService({
      env: {
        REDIS_URL: redis.url,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        RELAY_INTERVAL_MS: '50',
        WEBHOOK_SWEEP_EVERY_MS: '300',
        TIMER_SWEEP_EVERY_MS: '300',
        DUE_SOON_BEFORE_MS: String(REMINDER_MS),
        OPS_TOKEN,
        OPS_WRITE: 'true',
      },
    });
    call = apiClient(t.url);
    deliverBy = Date.now() + 6_000;
    const fixture = baseFixture([VENUE, FRAUD, LIMITS, ONCE, TWO]);
    for (const o of fixture.orders as Array<Record<string, unknown>>) {
      if (o.id === VENUE) Object.assign(o, { deliver_by: new Date(deliverBy).toISOString(), event_starts_at: '2030-01-01T00:00:00Z' });
      if (o.id === FRAUD || o.id === LIMITS || o.id === ONCE || o.id === TWO) {
        Object.assign(o, { deliver_by: '2029-06-01T00:00:00Z', event_starts_at: '2030-01-01T00:00:00Z' });
      }
    }
    await t.seed(fixture);
    endpoints = await startPartyEndpoints(call);
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as Parameters<typeof openApiChecker>[0];
    const checker = openApiChecker(doc);
    check = (method, p, status, body) => checker.check(method, p, status, body);
  });
  afterAll(async () => {
    await endpoints?.close();
    await t?.stop();
    await redis?.private?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const eventsOf = async (orderId: number) => (await call(BUYER, 'GET', `/v9/orders/${orderId}/events`)).body.events as Event[];
  const holdsOf = async (orderId: number) => {
    const listed = await call(BUYER, 'GET', `/v9/orders/${orderId}/holds`);
    check('GET', '/v9/orders/{id}/holds', listed.status, listed.body);
    return listed.body.holds as Array<Record<string, any>>;
  };
  /** An accepted order whose shipment takes a transfer link: completed with one. */
  const acceptedLinkOrder = async (orderId: number, type = 'XMobileLink') => {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: type });
    expect(updated.status).toBe(200);
    return updated.body.id as number;
  };
  const complete = (shipmentId: number) =>
    call(SELLER, 'PUT', `/v9/shipments/${shipmentId}/complete`, { x_mobile_link: `https://t.example.test/${shipmentId}` });
  const cli = (args: string[]) =>
    new Promise<{ code: number; out: string; err: string }>((resolve) => {
      const env = { PATH: process.env.PATH, DATA_DIR: dataDir, DATABASE_URL: t.db.url, OPS_TOKEN };
      execFile(
        process.execPath,
        [BIN, ...args, ...(args[1] === 'list' ? [] : ['--base', t.url])],
        { env, timeout: 30_000 },
        (error, out, err) => {
          const e = error as (Error & { code?: number }) | null;
          resolve({ code: e ? (e.code ?? 1) : 0, out, err });
        },
      );
    });

  it('a venue hold with release_at stops completion and the deadline, releases itself once, and moves deliver_by by the time held', async () => {
    const shipmentId = await acceptedLinkOrder(VENUE);
    const releaseAt = deliverBy + 1_500;
    const placed = await call(SELLER, 'POST', `/v9/orders/${VENUE}/holds`, {
      reason: 'venue_release_pending',
      notes: 'barcodes out tomorrow',
      handle: 'venue',
      release_at: new Date(releaseAt).toISOString(),
    });
    check('POST', '/v9/orders/{id}/holds', placed.status, placed.body);
    expect(placed.status).toBe(201);
    expect(placed.body).toMatchObject({ order_id: VENUE, reason: 'venue_release_pending', state: 'active', handle: 'venue', seats: [] });
    expect(placed.body.placed_by).toEqual({ party: 'seller', brokerage_id: 1, user_id: null, operator: null });
    const holdId = placed.body.id as number;

    const read = await call(BUYER, 'GET', `/v9/orders/${VENUE}`);
    check('GET', '/v9/orders/{id}', read.status, read.body);
    expect(read.body).toMatchObject({ on_hold: true, holds: [{ id: holdId, state: 'active' }] });
    const refused = await complete(shipmentId);
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].message).toContain(`on hold (hold ${holdId}, venue_release_pending)`);

    await until('the hold releases itself', async () => (await holdsOf(VENUE))[0]!.state === 'released', 20_000);
    expect(Date.now()).toBeGreaterThanOrEqual(releaseAt);
    const [hold] = await holdsOf(VENUE);
    expect(hold).toMatchObject({ release_why: 'release_at', released_by: { party: 'system' } });
    const heldMs = Date.parse(hold!.released_at) - Date.parse(hold!.placed_at);
    expect(hold!.deadline_extended_ms).toBe(heldMs);
    const after = await call(SELLER, 'GET', `/v9/orders/${VENUE}`);
    expect(after.body).toMatchObject({ on_hold: false, holds: [], deliver_by: new Date(deliverBy + heldMs).toISOString() });

    // The deadline passed while held and nothing fired; the moved one fires, once, after the release.
    await until('the moved deadline', async () => (await eventsOf(VENUE)).some((e) => e.kind === 'overdue'), 20_000);
    expect(Date.now()).toBeGreaterThanOrEqual(deliverBy + heldMs);
    const history = await eventsOf(VENUE);
    const seqOf = (kind: string) => history.find((e) => e.kind === kind)!.seq;
    expect(history.filter((e) => e.kind === 'overdue')).toHaveLength(1);
    expect(history.filter((e) => e.kind === 'due_soon')).toHaveLength(1);
    expect(history.filter((e) => e.kind === 'hold_released')).toHaveLength(1);
    expect(seqOf('due_soon')).toBeGreaterThan(seqOf('hold_released'));
    expect(seqOf('overdue')).toBeGreaterThan(seqOf('deadline_extended'));
    expect(history.find((e) => e.kind === 'hold_released')).toMatchObject({
      actor: { type: 'system', reason: 'hold_release_at' },
      details: { release_why: 'release_at', hold: { id: holdId, state: 'released' } },
    });
    expect(history.find((e) => e.kind === 'deadline_extended')).toMatchObject({
      details: {
        reason: 'venue_release_pending',
        hold_id: holdId,
        extended_ms: heldMs,
        previous_deliver_by: new Date(deliverBy).toISOString(),
        deliver_by: new Date(deliverBy + heldMs).toISOString(),
      },
    });
    expect((await complete(shipmentId)).status).toBe(200);

    // Both parties' webhooks carry each step.
    for (const p of endpoints.parties) {
      await until(`the ${p.party}'s hold events`, () => {
        const types = p.receiver.acknowledged.filter((r) => r.body.order_id === VENUE).map((r) => r.body.type);
        return ['order.hold_placed', 'order.hold_released', 'order.deadline_extended'].every((k) => types.includes(k));
      });
    }
  });

  it('a fraud hold: the seller may not place or release it, an operator places and releases it (fulfil holds)', async () => {
    const shipmentId = await acceptedLinkOrder(FRAUD);
    const before = (await eventsOf(FRAUD)).length;
    const seller = await call(SELLER, 'POST', `/v9/orders/${FRAUD}/holds`, { reason: 'fraud_review' });
    expect(seller.status).toBe(403);
    expect(seller.body.errors[0].message).toContain('only an operator may place a fraud_review hold');
    expect((await call(BUYER, 'POST', `/v9/orders/${FRAUD}/holds`, { reason: 'other' })).status).toBe(403);
    expect((await call(STRANGER, 'POST', `/v9/orders/${FRAUD}/holds`, { reason: 'other' })).status).toBe(404);
    expect(await holdsOf(FRAUD)).toEqual([]);
    expect(await eventsOf(FRAUD)).toHaveLength(before);

    const placed = await cli([
      'holds',
      'place',
      String(FRAUD),
      '--reason',
      'fraud_review',
      '--notes',
      'card check',
      '--operator',
      'ops-ann',
    ]);
    expect(placed.err).toBe('');
    expect(placed.code).toBe(0);
    const [hold] = await holdsOf(FRAUD);
    expect(placed.out).toBe(`hold ${hold!.id} on order ${FRAUD}: fraud_review, active\n`);
    expect(hold!.placed_by).toEqual({ party: 'operator', brokerage_id: null, user_id: null, operator: 'ops-ann' });
    expect((await complete(shipmentId)).status).toBe(422);
    // The ops order view shows it.
    const page = await (await fetch(`${t.url}/ops/orders/${FRAUD}`, { headers: { authorization: `Bearer ${OPS_TOKEN}` } })).text();
    expect(page).toContain('<h2>Holds (1 active)</h2>');
    expect(page).toContain(
      `<tr data-hold="${hold!.id}"><td>${hold!.id}</td><td><b>active</b></td><td>fraud_review</td><td>all</td><td>operator ops-ann`,
    );
    const release = await call(SELLER, 'POST', `/v9/holds/${hold!.id}/release`, {});
    expect(release.status).toBe(403);
    expect((await call(STRANGER, 'POST', `/v9/holds/${hold!.id}/release`, {})).status).toBe(404);

    const released = await cli(['holds', 'release', String(hold!.id), '--operator', 'ops-ann']);
    expect(released.code).toBe(0);
    const [after] = await holdsOf(FRAUD);
    const heldMs = Date.parse(after!.released_at) - Date.parse(after!.placed_at);
    expect(after).toMatchObject({ state: 'released', release_why: 'released', released_by: { party: 'operator', operator: 'ops-ann' } });
    expect(released.out).toBe(`hold ${hold!.id} released; deadline moved by ${heldMs} ms\n`);
    const order = await call(BUYER, 'GET', `/v9/orders/${FRAUD}`);
    expect(order.body.deliver_by).toBe(new Date(Date.parse('2029-06-01T00:00:00Z') + heldMs).toISOString());
    const history = await eventsOf(FRAUD);
    expect(history.find((e) => e.kind === 'hold_placed')).toMatchObject({ actor: { type: 'system', reason: 'operator_hold' } });
    expect(history.find((e) => e.kind === 'deadline_extended')).toMatchObject({ details: { reason: 'fraud_review', extended_ms: heldMs } });
    const listed = await cli(['holds', 'list', String(FRAUD)]);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain('fraud_review');
    expect(listed.out).toContain('(released)');
    expect((await complete(shipmentId)).status).toBe(200);
  });

  it('bad input and limits change nothing; a handle answers its first hold; released holds stay released', async () => {
    const eticketShipment = await acceptedLinkOrder(LIMITS, 'Eticket');
    const events = (await eventsOf(LIMITS)).length;
    const place = (body: object) => call(SELLER, 'POST', `/v9/orders/${LIMITS}/holds`, body);
    const past = await place({ reason: 'other', release_at: new Date(Date.now() - 60_000).toISOString() });
    expect(past.status).toBe(400);
    expect(past.body.errors[0]).toMatchObject({ field: 'release_at' });
    const seat = await place({ reason: 'other', seats: ['1', '9'] });
    expect(seat.status).toBe(400);
    expect(seat.body.errors[0]).toMatchObject({ field: 'seats.1' });
    expect((await place({ reason: 'nope' })).status).toBe(400);
    expect((await place({ reason: 'other', handle: 'x'.repeat(65) })).status).toBe(400);
    expect(await holdsOf(LIMITS)).toEqual([]);
    expect(await eventsOf(LIMITS)).toHaveLength(events);

    const first = await place({ reason: 'other', handle: 'h1', seats: ['2'] });
    expect(first.status).toBe(201);
    expect(first.body.seats).toEqual(['2']);
    const again = await place({ reason: 'venue_release_pending', handle: 'h1', notes: 'another' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    for (let i = 0; i < 9; i++) expect((await place({ reason: 'other' })).status).toBe(201);
    const eleventh = await place({ reason: 'other' });
    expect(eleventh.status).toBe(422);
    expect(eleventh.body.errors[0].message).toContain('10 active holds');
    expect(await holdsOf(LIMITS)).toHaveLength(10);

    const deadline = (await call(SELLER, 'GET', `/v9/orders/${LIMITS}`)).body.deliver_by;
    const released = await call(SELLER, 'POST', `/v9/holds/${first.body.id}/release`, { notes: 'done' });
    check('POST', '/v9/holds/{id}/release', released.status, released.body);
    expect(released.body).toMatchObject({ state: 'released', deadline_extended_ms: 0 });
    // `other` gives no time back.
    expect((await call(SELLER, 'GET', `/v9/orders/${LIMITS}`)).body.deliver_by).toBe(deadline);
    const twice = await call(SELLER, 'POST', `/v9/holds/${first.body.id}/release`, {});
    expect(twice.status).toBe(422);
    expect(twice.body.errors[0].message).toContain('already released');
    expect((await call(BUYER, 'POST', `/v9/holds/${first.body.id}/release`, {})).status).toBe(403);
    // The released handle still answers the first hold, released.
    expect((await place({ reason: 'other', handle: 'h1' })).body).toMatchObject({ id: first.body.id, state: 'released' });

    // The buyer answers an awaiting_buyer_info hold, and only that.
    const ask = await place({ reason: 'awaiting_buyer_info', notes: 'name for the transfer?' });
    expect(ask.status).toBe(201);
    expect((await call(SELLER, 'POST', `/v9/holds/${ask.body.id}/answer`, { notes: 'x' })).status).toBe(403);
    const otherId = (await holdsOf(LIMITS)).find((h) => h.reason === 'other' && h.state === 'active')!.id;
    expect((await call(BUYER, 'POST', `/v9/holds/${otherId}/answer`, { notes: 'x' })).status).toBe(422);
    const answered = await call(BUYER, 'POST', `/v9/holds/${ask.body.id}/answer`, { notes: 'Ada Lovelace' });
    check('POST', '/v9/holds/{id}/answer', answered.status, answered.body);
    expect(answered.body).toMatchObject({ state: 'active', answer_notes: 'Ada Lovelace' });
    expect((await call(BUYER, 'POST', `/v9/holds/${ask.body.id}/answer`, { notes: 'again' })).status).toBe(422);
    // Answered within the day: its release gives no time back.
    const abiReleased = await call(SELLER, 'POST', `/v9/holds/${ask.body.id}/release`, {});
    expect(abiReleased.body.deadline_extended_ms).toBe(0);
    expect((await eventsOf(LIMITS)).filter((e) => e.kind === 'deadline_extended')).toEqual([]);

    // Still held (nine `other` holds): an upload is refused as a completion is, naming the oldest active hold.
    const upload = await call(SELLER, 'POST', `/v9/shipments/${eticketShipment}/etickets`, {
      etickets: [
        { eticket: b64(await makePdf(1, 'seat 1')), seat: '1' },
        { eticket: b64(await makePdf(1, 'seat 2')), seat: '2' },
      ],
    });
    expect(upload.status).toBe(422);
    expect(upload.body.errors[0].message).toContain(`on hold (hold ${otherId}, other)`);
  });

  it('a release timer releases once across a FLUSHALL and when its run is fired again', async () => {
    await acceptedLinkOrder(ONCE);
    const releaseAt = Date.now() + 2_000;
    const placed = await call(SELLER, 'POST', `/v9/orders/${ONCE}/holds`, {
      reason: 'venue_release_pending',
      release_at: new Date(releaseAt).toISOString(),
    });
    expect(placed.status).toBe(201);
    // Redis loses every job, the release's included; the sweep arms it again from Postgres.
    const client = new Redis(redis.url);
    await client.flushall();
    client.disconnect();
    await until('the release', async () => (await holdsOf(ONCE))[0]!.state === 'released', 20_000);
    expect(Date.now()).toBeGreaterThanOrEqual(releaseAt);
    // The run fired again, twice at once, after the release: nothing more happens.
    const again = await Promise.all([0, 1].map(() => t.db.database.transaction((tx) => fireHoldReleaseIn(tx, ONCE, Date.now()))));
    expect(again).toEqual([{ kind: 'finished' }, { kind: 'finished' }]);
    await new Promise((r) => setTimeout(r, 1_000));
    const history = await eventsOf(ONCE);
    expect(history.filter((e) => e.kind === 'hold_released')).toHaveLength(1);
    expect(history.filter((e) => e.kind === 'deadline_extended')).toHaveLength(1);
  });

  it('two overlapping holds released at once: both released, the time held given back once', async () => {
    await acceptedLinkOrder(TWO);
    const deadline = Date.parse((await call(SELLER, 'GET', `/v9/orders/${TWO}`)).body.deliver_by);
    const a = await call(SELLER, 'POST', `/v9/orders/${TWO}/holds`, { reason: 'venue_release_pending', handle: 'a' });
    const b = await call(SELLER, 'POST', `/v9/orders/${TWO}/holds`, { reason: 'venue_release_pending', handle: 'b' });
    expect([a.status, b.status]).toEqual([201, 201]);
    const released = await Promise.all([a, b].map((h) => call(SELLER, 'POST', `/v9/holds/${h.body.id}/release`, {})));
    expect(released.map((r) => r.status)).toEqual([200, 200]);
    const holds = await holdsOf(TWO);
    const first = Math.min(...holds.map((h) => Date.parse(h.placed_at)));
    const last = Math.max(...holds.map((h) => Date.parse(h.released_at)));
    const given = holds.reduce((sum, h) => sum + (h.deadline_extended_ms as number), 0);
    expect(given).toBe(last - first);
    expect(Date.parse((await call(SELLER, 'GET', `/v9/orders/${TWO}`)).body.deliver_by)).toBe(deadline + given);
    const extended = (await eventsOf(TWO)).filter((e) => e.kind === 'deadline_extended');
    expect(extended.reduce((sum, e) => sum + (e.details.extended_ms as number), 0)).toBe(given);
  });
});
