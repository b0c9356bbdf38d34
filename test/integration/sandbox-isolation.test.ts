import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredential } from '../../src/auth/credentials.ts';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { describeRoutes } from '../../src/http/openapi/document.ts';
import { SIMULATED_BROKERAGE_ID } from '../../src/sandbox/sandbox-twin.ts';
import { renderMetrics } from '../../src/telemetry/metrics-scrape.ts';
import { apiClient, type ApiResponse } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { baseFixture, BUYER, ORDERS, SELLER, STRANGER } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, TEST_SECRET_KEY, type TestService } from '../support/service.ts';
import { b64, makePdf } from '../support/test-files.ts';
import { until } from '../support/webhook-receiver.ts';

// Issue 55, test mode: a test credential never sees or touches live data and a live credential
// never sees or touches test data. On every route that names an order or an object of one (and a
// webhook endpoint), the intruder's answer is exactly another brokerage's, nothing changes, and
// the owner's own reads say the object's mode. The routes come from the app's route table: a new
// route fails here until it is exercised below or listed as not order-scoped, with why.

const TEST_SELLER = { token: 'SellerTestToken00000000000000001', secret: 'seller-test-secret-000000000000000000001' };
const TEST_BUYER = { token: 'BuyerTestToken000000000000000002', secret: 'buyer-test-secret-0000000000000000000002' };

type Cred = typeof SELLER;

/** The objects of one order, in one mode, that the routes name. */
interface World {
  livemode: boolean;
  seller: Cred;
  buyer: Cred;
  order: number;
  shipment: number;
  eticket: number;
  issue: number;
  hold: number;
  endpoint: number;
  command: string;
}

type Call = [method: string, path: string, body?: object];

const at = new Date().toISOString();

/** Every order-scoped route (as the route table names it), with a body a party could send. */
const ORDER_SCOPED: Record<string, (w: World) => Call> = {
  'GET /v9/orders/:id': (w) => ['GET', `/v9/orders/${w.order}`],
  'PUT /v9/orders/:id': (w) => ['PUT', `/v9/orders/${w.order}`, { in_hand_on: '2030-01-02' }],
  'POST /v9/orders/:id/accept': (w) => ['POST', `/v9/orders/${w.order}/accept`, { reviewer_id: 100 }],
  'POST /v9/orders/:id/reject': (w) => ['POST', `/v9/orders/${w.order}/reject`, { reviewer_id: 100, reason: 'tickets_unavailable' }],
  'POST /v9/orders/:id/cancel': (w) => ['POST', `/v9/orders/${w.order}/cancel`, { reason: 'buyer_request' }],
  'DELETE /v9/orders/:id/cancel': (w) => ['DELETE', `/v9/orders/${w.order}/cancel`],
  'POST /v9/orders/:id/confirm_receipt': (w) => ['POST', `/v9/orders/${w.order}/confirm_receipt`, {}],
  'POST /v9/orders/:id/delivery_issues': (w) => ['POST', `/v9/orders/${w.order}/delivery_issues`, { reason: 'not_received' }],
  'GET /v9/orders/:id/delivery_issues': (w) => ['GET', `/v9/orders/${w.order}/delivery_issues`],
  'GET /v9/orders/:id/delivery_evidence': (w) => ['GET', `/v9/orders/${w.order}/delivery_evidence`],
  'GET /v9/orders/:id/events': (w) => ['GET', `/v9/orders/${w.order}/events`],
  'GET /v9/shipments/:id': (w) => ['GET', `/v9/shipments/${w.shipment}`],
  'PUT /v9/shipments/:id': (w) => ['PUT', `/v9/shipments/${w.shipment}`, { mobile_transfer_type: 'XMobileLink' }],
  'PUT /v9/shipments/:id/complete': (w) => ['PUT', `/v9/shipments/${w.shipment}/complete`, {}],
  'POST /v9/shipments/:id/complete': (w) => ['POST', `/v9/shipments/${w.shipment}/complete`, {}],
  'POST /v9/shipments/:id/etickets': (w) => ['POST', `/v9/shipments/${w.shipment}/etickets`, { etickets: [{ eticket: PDF, seat: '14' }] }],
  'GET /v9/shipments/:id/etickets': (w) => ['GET', `/v9/shipments/${w.shipment}/etickets`],
  'GET /v9/shipments/:id/etickets/:eticket_id': (w) => ['GET', `/v9/shipments/${w.shipment}/etickets/${w.eticket}`],
  'POST /v9/shipments/:id/etickets/link': (w) => ['POST', `/v9/shipments/${w.shipment}/etickets/link`, { eticket_id: w.eticket }],
  'POST /v9/shipments/:id/transfer_verifications': (w) => [
    'POST',
    `/v9/shipments/${w.shipment}/transfer_verifications`,
    { files: [{ file: PDF, media_type: 'application/pdf' }] },
  ],
  'GET /v9/shipments/:id/transfer_verifications': (w) => ['GET', `/v9/shipments/${w.shipment}/transfer_verifications`],
  'GET /v9/shipments/:id/transfer_verifications/:file_id': (w) => [
    'GET',
    `/v9/shipments/${w.shipment}/transfer_verifications/${w.eticket}`,
  ],
  'POST /v9/shipments/:id/reissue': (w) => ['POST', `/v9/shipments/${w.shipment}/reissue`, { etickets: [{ eticket: PDF, seat: '12' }] }],
  'POST /v9/shipments/:id/airbill': (w) => ['POST', `/v9/shipments/${w.shipment}/airbill`, { airbill: PDF }],
  'GET /v9/shipments/:id/airbill': (w) => ['GET', `/v9/shipments/${w.shipment}/airbill`],
  'PUT /v9/shipments/:id/tracking': (w) => ['PUT', `/v9/shipments/${w.shipment}/tracking`, { tracking_number: '1Z999AA10123456784' }],
  'POST /v9/shipments/:id/tracking_events': (w) => [
    'POST',
    `/v9/shipments/${w.shipment}/tracking_events`,
    { status: 'in_transit', occurred_at: at },
  ],
  'GET /v9/shipments/:id/tracking_events': (w) => ['GET', `/v9/shipments/${w.shipment}/tracking_events`],
  'GET /v9/delivery_issues/:id': (w) => ['GET', `/v9/delivery_issues/${w.issue}`],
  'POST /v9/delivery_issues/:id/responses': (w) => ['POST', `/v9/delivery_issues/${w.issue}/responses`, { notes: 'see the evidence' }],
  'POST /v9/delivery_issues/:id/resolve': (w) => ['POST', `/v9/delivery_issues/${w.issue}/resolve`, {}],
  'POST /v9/delivery_issues/:id/escalate': (w) => ['POST', `/v9/delivery_issues/${w.issue}/escalate`, {}],
  'POST /v9/orders/:id/holds': (w) => ['POST', `/v9/orders/${w.order}/holds`, { reason: 'other' }],
  'GET /v9/orders/:id/holds': (w) => ['GET', `/v9/orders/${w.order}/holds`],
  'POST /v9/holds/:id/release': (w) => ['POST', `/v9/holds/${w.hold}/release`, {}],
  'POST /v9/holds/:id/answer': (w) => ['POST', `/v9/holds/${w.hold}/answer`, { notes: 'Ada Lovelace' }],
  'GET /v9/commands/:id': (w) => ['GET', `/v9/commands/${w.command}`],
  'GET /v9/webhook_endpoints/:id': (w) => ['GET', `/v9/webhook_endpoints/${w.endpoint}`],
  'PATCH /v9/webhook_endpoints/:id': (w) => ['PATCH', `/v9/webhook_endpoints/${w.endpoint}`, { enabled: false }],
  'PUT /v9/webhook_endpoints/:id': (w) => ['PUT', `/v9/webhook_endpoints/${w.endpoint}`, { url: 'http://127.0.0.1:9/moved' }],
  'DELETE /v9/webhook_endpoints/:id': (w) => ['DELETE', `/v9/webhook_endpoints/${w.endpoint}`],
  'POST /v9/webhook_endpoints/:id/rotate_secret': (w) => ['POST', `/v9/webhook_endpoints/${w.endpoint}/rotate_secret`, {}],
  'GET /v9/webhook_endpoints/:id/deliveries': (w) => ['GET', `/v9/webhook_endpoints/${w.endpoint}/deliveries`],
  'POST /v9/webhook_endpoints/:id/redeliver': (w) => ['POST', `/v9/webhook_endpoints/${w.endpoint}/redeliver`, { order_id: w.order }],
  'POST /v9/webhook_endpoints/:id/ping': (w) => ['POST', `/v9/webhook_endpoints/${w.endpoint}/ping`, {}],
};

/** Reads whose owner gets a JSON answer in the worlds below, and where that answer says its mode. */
const OWNER_READS: Record<string, (body: any) => unknown> = {
  'GET /v9/orders/:id': (b) => b.livemode,
  'GET /v9/orders/:id/delivery_issues': (b) => b.delivery_issues[0].livemode,
  'GET /v9/orders/:id/delivery_evidence': (b) => b.livemode,
  'GET /v9/orders/:id/events': (b) => b.livemode,
  'GET /v9/shipments/:id': (b) => b.livemode,
  'GET /v9/shipments/:id/etickets': (b) => b.livemode,
  'GET /v9/shipments/:id/transfer_verifications': (b) => b.livemode,
  'GET /v9/delivery_issues/:id': (b) => b.livemode,
  'GET /v9/orders/:id/holds': (b) => b.holds[0].livemode,
  'GET /v9/webhook_endpoints/:id': (b) => b.livemode,
};

/** Routes that name no order nor an object of one, and why each keeps the modes apart (or has nothing to keep apart). */
const NOT_ORDER_SCOPED: Record<string, string> = {
  'GET /': 'the front door: no data',
  'GET /livez': 'health: no data',
  'GET /readyz': 'health: no data',
  'GET /v9/credentials/current': "the caller's own credential (it says its livemode)",
  'POST /v9/credentials/current/verify': "the caller's own signature check",
  'PUT /v9/credentials/current/verify': "the caller's own signature check",
  'GET /v9/inventory': "the caller's brokerage's inventory: a test credential's is its sandbox brokerage's, which nothing ingests into",
  'GET /v9/events': "the caller's feed: the feed test below",
  'GET /v9/webhook_endpoints': "the caller's endpoints: the endpoints test below",
  'POST /v9/webhook_endpoints': "registers for the caller's brokerage: the endpoints test below",
  'POST /v9/test_helpers/orders':
    "makes a test order for the caller's sandbox brokerage; a live credential is refused (sandbox-test-mode.test.ts)",
  'POST /v9/test_helpers/orders/:id/actions':
    "a test order's simulated party; a live credential is refused (403), another sandbox's order is 404 (sandbox-simulated-party.test.ts)",
  'POST /v9/test_clocks': "makes a clock of the caller's sandbox; a live credential is refused (test-clocks.test.ts)",
  'GET /v9/test_clocks': "the caller's sandbox's clocks; a live credential is refused (test-clocks.test.ts)",
  'GET /v9/test_clocks/:id': "a clock of the caller's sandbox; another's is 404, a live credential 403 (test-clocks.test.ts)",
  'POST /v9/test_clocks/:id/advance': "a clock of the caller's sandbox; another's is 404, a live credential 403 (test-clocks.test.ts)",
  'DELETE /v9/test_clocks/:id': "a clock of the caller's sandbox; another's is 404, a live credential 403 (test-clocks.test.ts)",
  'POST /carriers/easypost/events': 'the carrier account, signed with its secret: no credential, names no order',
  'GET /eticket_downloads/:token':
    'the one-time token is the credential; only a party of the order can make one (POST …/etickets/link, above)',
  'POST /eticket_downloads/:token':
    'the one-time token is the credential; only a party of the order can make one (POST …/etickets/link, above)',
};

let PDF = '';
const OPS_TOKEN = 'sandbox-isolation-ops';

function sandboxFixture() {
  const fixture = baseFixture();
  fixture.brokerages[0]!.credentials.push({ kind: 'api', mode: 'test', ...TEST_SELLER } as never);
  fixture.brokerages[1]!.credentials.push({ kind: 'api', mode: 'test', ...TEST_BUYER } as never);
  return fixture;
}

describe('test mode isolation: every order-scoped route, both ways', () => {
  let db: TestDatabase;
  const prefix = testPrefix();
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let live: World;
  let test: World;
  let routes: string[];

  const sql = () => db.database.sql!;

  /** An Eticket order taken to delivered by its seller: its shipment and first e-ticket. */
  async function delivered(seller: Cred, orderId: number): Promise<{ shipment: number; eticket: number }> {
    const accepted = await call(seller, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const updated = await call(seller, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'Eticket' });
    expect(updated.status).toBe(200);
    const shipment = updated.body.id as number;
    const up = await call(seller, 'POST', `/v9/shipments/${shipment}/etickets`, {
      etickets: [
        { eticket: b64(await makePdf(1, `12 of ${orderId}`)), seat: '12', barcode: `B-12-${orderId}` },
        { eticket: b64(await makePdf(1, `13 of ${orderId}`)), seat: '13', barcode: `B-13-${orderId}` },
      ],
    });
    expect(up.status).toBe(200);
    expect((await call(seller, 'PUT', `/v9/shipments/${shipment}/complete`, {})).status).toBe(200);
    return { shipment, eticket: up.body.etickets[0].id as number };
  }

  async function world(livemode: boolean, seller: Cred, buyer: Cred, order: number): Promise<World> {
    const { shipment, eticket } = await delivered(seller, order);
    const opened = await call(buyer, 'POST', `/v9/orders/${order}/delivery_issues`, { reason: 'wrong_tickets', seats: ['12'] });
    expect(opened.status).toBe(201);
    expect(opened.body.livemode).toBe(livemode);
    const endpoint = await call(seller, 'POST', '/v9/webhook_endpoints', { url: `http://127.0.0.1:9/${livemode ? 'live' : 'test'}` });
    expect(endpoint.status).toBe(201);
    expect(endpoint.body.livemode).toBe(livemode);
    const [command] = await sql()`select c.id from commands c join credentials k on k.brokerage_id = c.brokerage_id
      where k.token = ${seller.token} order by c.created_at limit 1`;
    // A hold of the (completed) order, as one placed before the completion would stand: an awaiting_buyer_info one the buyer could answer.
    const [hold] = await sql()`insert into holds (order_id, reason, placed_by_party, placed_at, released_at)
      values (${order}, 'awaiting_buyer_info', 'seller', now(), null) returning id`;
    return {
      livemode,
      seller,
      buyer,
      order,
      shipment,
      eticket,
      issue: opened.body.id,
      hold: Number(hold!.id),
      endpoint: endpoint.body.id,
      command: command!.id,
    };
  }

  /** What the intruder could change: the order, its shipments, issues, files, links, and the endpoint. */
  async function state(w: World) {
    return {
      order: await sql()`select state, event_seq, updated_at, in_hand_on from orders where id = ${w.order}`,
      shipments: await sql()`select id, type, state, replaced_by, tracking_number from shipments where order_id = ${w.order} order by id`,
      issues: await sql()`select id, state from delivery_issues where order_id = ${w.order} order by id`,
      holds: await sql()`select id, released_at, answered_at from holds where order_id = ${w.order} order by id`,
      files: await sql()`select count(*)::int as n from shipment_file_sets where shipment_id = ${w.shipment}`,
      links: await sql()`select count(*)::int as n from file_links`,
      endpoint: await sql()`select url, enabled, secret_ciphertext from webhook_endpoints where id = ${w.endpoint}`,
    };
  }

  const answer = (r: ApiResponse) => ({ status: r.status, code: r.body?.errors?.[0]?.code, field: r.body?.errors?.[0]?.field });

  async function expectSeenAsStranger(intruder: Cred, w: World) {
    const before = await state(w);
    for (const route of Object.keys(ORDER_SCOPED)) {
      const [method, path, body] = ORDER_SCOPED[route]!(w);
      const theirs = await call(intruder, method, path, body);
      const strangers = await call(STRANGER, method, path, body);
      expect(answer(theirs), route).toEqual(answer(strangers));
      expect(theirs.status, route).toBeGreaterThanOrEqual(400);
    }
    expect(await state(w)).toEqual(before);
  }

  beforeAll(async () => {
    PDF = b64(await makePdf(1, 'intruder'));
    routes = await describeRoutes().then((r) => [...r.documented, ...r.undocumented]);
    db = await createTestDatabase();
    t = await startTestService({ db, prefix, env: { WEBHOOK_ALLOW_PRIVATE: 'true', OPS_TOKEN } });
    await t.seed(sandboxFixture());
    call = apiClient(t.url);
    // The simulated counterparty has no credential of its own; one made here lets this test act as
    // the buyer of a test order (opening its delivery issue) without the test helpers' actions.
    const simulated = await createCredential(db.database.db, SecretBox.fromKey(TEST_SECRET_KEY), { brokerageId: SIMULATED_BROKERAGE_ID });
    live = await world(true, SELLER, BUYER, ORDERS.tbd);
    const created = await call(TEST_SELLER, 'POST', '/v9/test_helpers/orders', { role: 'seller', delivery: 'tbd', quantity: 2 });
    expect(created.status).toBe(201);
    test = await world(false, TEST_SELLER, { token: simulated.token, secret: simulated.secret }, created.body.id);
  });
  afterAll(async () => {
    await t?.stop();
    await dropPrefix(prefix);
    await db?.drop();
  });

  it('every route of the app is exercised here or listed as not order-scoped', () => {
    const unlisted = routes.filter((r) => !(r in ORDER_SCOPED) && !(r in NOT_ORDER_SCOPED));
    expect(unlisted, 'routes neither exercised nor listed as not order-scoped').toEqual([]);
    const gone = Object.keys(ORDER_SCOPED).filter((r) => !routes.includes(r));
    expect(gone, 'exercised routes the app no longer has').toEqual([]);
  });

  it("each owner reads its objects, and every answer says the object's mode", async () => {
    for (const w of [live, test]) {
      for (const [route, modeOf] of Object.entries(OWNER_READS)) {
        const [method, path] = ORDER_SCOPED[route]!(w);
        const r = await call(w.seller, method, path);
        expect(r.status, `${route} (${w.livemode ? 'live' : 'test'})`).toBe(200);
        expect(modeOf(r.body), route).toBe(w.livemode);
      }
      const order = await call(w.seller, 'GET', `/v9/orders/${w.order}`);
      expect(order.body.test_clock).toBeNull();
      const file = await signedFetch(t.url, w.seller, 'GET', `/v9/shipments/${w.shipment}/etickets/${w.eticket}`);
      expect(file.status).toBe(200);
      await file.arrayBuffer();
      expect((await call(w.seller, 'GET', `/v9/commands/${w.command}`)).status).toBe(200);
      expect((await call(w.buyer, 'GET', `/v9/delivery_issues/${w.issue}`)).body.livemode).toBe(w.livemode);
    }
  });

  it('a test credential gets, on every route of a live order and endpoint, what another brokerage gets; nothing changes', async () => {
    await expectSeenAsStranger(TEST_SELLER, live);
    await expectSeenAsStranger(TEST_BUYER, live);
  });

  it('a live credential gets, on every route of a test order and endpoint, what another brokerage gets; nothing changes', async () => {
    await expectSeenAsStranger(SELLER, test);
    await expectSeenAsStranger(BUYER, test);
  });

  it("each mode's feed carries only that mode's events, each saying so", async () => {
    const feed = async (cred: Cred) => {
      const r = await call(cred, 'GET', '/v9/events?limit=1000');
      expect(r.status).toBe(200);
      return r.body.events as Array<{ order_id: number; livemode: boolean; test_clock: number | null }>;
    };
    await until(
      'both orders in their feeds',
      async () =>
        (await feed(TEST_SELLER)).some((e) => e.order_id === test.order) && (await feed(SELLER)).some((e) => e.order_id === live.order),
      15_000,
    );
    const [testFeed, liveFeed] = [await feed(TEST_SELLER), await feed(SELLER)];
    expect(testFeed.every((e) => e.livemode === false && e.order_id !== live.order)).toBe(true);
    expect(liveFeed.every((e) => e.livemode === true && e.order_id !== test.order)).toBe(true);
    // The other party of each mode reads the same split: the live buyer never sees the test order.
    expect((await feed(BUYER)).some((e) => e.order_id === test.order)).toBe(false);
    expect((await feed(TEST_BUYER)).some((e) => e.order_id === live.order)).toBe(false);
  });

  it("a test credential lists and registers only its sandbox brokerage's endpoints, which are owed only test events", async () => {
    const listed = async (cred: Cred) => (await call(cred, 'GET', '/v9/webhook_endpoints')).body.webhook_endpoints as Array<any>;
    expect((await listed(TEST_SELLER)).map((e) => [e.id, e.livemode])).toEqual([[test.endpoint, false]]);
    expect((await listed(SELLER)).map((e) => [e.id, e.livemode])).toEqual([[live.endpoint, true]]);
    const [owner] = await sql()`select b.livemode, b.sandbox_of from webhook_endpoints e join brokerages b on b.id = e.brokerage_id
      where e.id = ${test.endpoint}`;
    expect([owner!.livemode, Number(owner!.sandbox_of)]).toEqual([false, 1]);
    // Each endpoint is owed its own mode's events only (the relay writes what each is owed).
    const owed = async (endpoint: number) =>
      sql()`select distinct o.livemode from webhook_deliveries d join orders o on o.id = d.order_id where d.endpoint_id = ${endpoint}`;
    // An event of each mode after both endpoints exist.
    expect((await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd2}/accept`, { reviewer_id: 100 })).status).toBe(200);
    const another = await call(TEST_SELLER, 'POST', '/v9/test_helpers/orders', { role: 'seller' });
    expect(another.status).toBe(201);
    expect((await call(TEST_SELLER, 'POST', `/v9/orders/${another.body.id}/accept`, { reviewer_id: 100 })).status).toBe(200);
    const newOnes = async () =>
      (
        await sql()`select distinct d.endpoint_id, d.order_id from webhook_deliveries d
          where d.order_id in (${ORDERS.tbd2}, ${another.body.id as number}) order by d.order_id`
      ).map((r) => [Number(r.endpoint_id), Number(r.order_id)]);
    await until('the new events owed', async () => (await newOnes()).length >= 2, 15_000);
    expect(await newOnes()).toEqual([
      [live.endpoint, ORDERS.tbd2],
      [test.endpoint, another.body.id],
    ]);
    expect((await owed(test.endpoint)).map((r) => r.livemode)).toEqual([false]);
    expect((await owed(live.endpoint)).map((r) => r.livemode)).toEqual([true]);
  });

  it('test objects stay out of the live metrics and the ops queues, and show apart when asked', async () => {
    // Both issues escalated by their buyers, and one more open order of each mode past its deadline.
    expect((await call(live.buyer, 'POST', `/v9/delivery_issues/${live.issue}/escalate`, {})).status).toBe(200);
    expect((await call(test.buyer, 'POST', `/v9/delivery_issues/${test.issue}/escalate`, {})).status).toBe(200);
    const pending = await call(TEST_SELLER, 'POST', '/v9/test_helpers/orders', { role: 'seller' });
    expect(pending.status).toBe(201);
    await sql()`update orders set deliver_by = now() - interval '1 hour' where id in ${sql()([ORDERS.tbd3, pending.body.id as number])}`;
    // A test order due in ten days on the wall, living at a test clock thirty days ahead: overdue at its clock's time.
    const [twin] = await sql()`select id from brokerages where sandbox_of = 1`;
    const [clock] = await sql()`insert into test_clocks (brokerage_id, name, frozen_time)
      values (${twin!.id}, 'rehearsal', now() + interval '30 days') returning id`;
    const inTenDays = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const onClock = await call(TEST_SELLER, 'POST', '/v9/test_helpers/orders', { role: 'seller', in_hand_on: inTenDays });
    expect(onClock.status).toBe(201);
    await sql()`update orders set test_clock_id = ${clock!.id} where id = ${onClock.body.id as number}`;
    const overdue = [ORDERS.tbd3, pending.body.id as number, onClock.body.id as number];

    const metrics = await renderMetrics({ queues: [], db: db.database.db });
    expect(metrics).toMatch(/^fulfil_orders_overdue\{mode="live"\} 1$/m);
    expect(metrics).toMatch(/^fulfil_orders_overdue\{mode="test"\} 2$/m);
    expect(metrics).toMatch(/^fulfil_delivery_issues\{state="escalated",mode="live"\} 1$/m);
    expect(metrics).toMatch(/^fulfil_delivery_issues\{state="escalated",mode="test"\} 1$/m);
    expect(metrics).toMatch(new RegExp(`^fulfil_webhook_backlog\\{endpoint_id="${test.endpoint}",mode="test"\\} \\d+$`, 'm'));

    const page = async (path: string) => {
      const res = await fetch(`${t.url}${path}`, {
        headers: { authorization: `Basic ${Buffer.from(`ops:${OPS_TOKEN}`).toString('base64')}` },
      });
      expect(res.status, path).toBe(200);
      return res.text();
    };
    const listed = (html: string) => [...html.matchAll(/<tr data-order="(\d+)">/g)].map((m) => Number(m[1]));
    // The queues are live unless asked: the overdue queue, and the whole list.
    expect(listed(await page('/ops/orders?overdue=yes'))).toEqual([ORDERS.tbd3]);
    expect(listed(await page('/ops/orders?overdue=yes&mode=test')).sort()).toEqual([pending.body.id, onClock.body.id].sort());
    expect(listed(await page('/ops/orders?overdue=yes&mode=all')).sort()).toEqual([...overdue].sort());
    const all = listed(await page('/ops/orders?limit=500'));
    expect(all).toContain(live.order);
    expect(all.some((id) => id >= SIMULATED_BROKERAGE_ID)).toBe(false);
    const testList = await page('/ops/orders?mode=test');
    expect(listed(testList)).toEqual(expect.arrayContaining([test.order, pending.body.id]));
    expect(listed(testList).every((id) => id > SIMULATED_BROKERAGE_ID)).toBe(true);
    expect(testList).toContain('class="test-mode"');

    // Escalated issues: the live one by default, the test one when asked, marked.
    const issuesOf = (html: string) => [...new Set([...html.matchAll(/data-issue="(\d+)"/g)].map((m) => Number(m[1])))];
    expect(issuesOf(await page('/ops/delivery_issues'))).toEqual([live.issue]);
    const testIssues = await page('/ops/delivery_issues?mode=test');
    expect(issuesOf(testIssues)).toEqual([test.issue]);
    expect(testIssues).toContain('test mode');

    // The order view marks a test order, with its clock; a live one has no badge.
    expect(await page(`/ops/orders/${test.order}`)).toMatch(/<span class="test-mode" id="test-mode">test mode · wall clock<\/span>/);
    expect(await page(`/ops/orders/${live.order}`)).not.toContain('id="test-mode"');
    expect(await page(`/ops/orders/${onClock.body.id}`)).toMatch(
      new RegExp(`<span class="test-mode" id="test-mode">test mode · clock ${clock!.id} "rehearsal" at \\d{4}-`),
    );
    const order = await call(TEST_SELLER, 'GET', `/v9/orders/${onClock.body.id}`);
    expect([order.body.livemode, order.body.test_clock]).toEqual([false, Number(clock!.id)]);
  });
});
