import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredential } from '../../src/auth/credentials.ts';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { SIMULATED_BROKERAGE_ID } from '../../src/sandbox/sandbox-twin.ts';
import { apiClient, type ApiResponse } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { baseFixture, BUYER, ORDERS, SELLER, STRANGER } from '../support/fixtures.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { until } from '../support/webhook-receiver.ts';
import { Redis } from 'ioredis';
import { TEST_REDIS_URL } from '../support/env.ts';
import { TimerQueue, timerJobId } from '../../src/timers/deadline-timers.ts';

// Issue 55, test mode: a test credential acts for its brokerage's sandbox twin. It never sees or
// touches live data, and a live credential never sees or touches test data: on every read and
// command route the answer is exactly the one another brokerage gets (404, or the same refusal).

const TEST_SELLER = { token: 'SellerTestToken00000000000000001', secret: 'seller-test-secret-000000000000000000001' };
const TEST_BUYER = { token: 'BuyerTestToken000000000000000002', secret: 'buyer-test-secret-0000000000000000000002' };

function sandboxFixture() {
  const fixture = baseFixture();
  fixture.brokerages[0]!.credentials.push({ kind: 'api', mode: 'test', ...TEST_SELLER } as never);
  fixture.brokerages[1]!.credentials.push({ kind: 'api', mode: 'test', ...TEST_BUYER } as never);
  return fixture;
}

type Cred = typeof SELLER;

describe('test mode: test credentials, sandbox twins and test orders', () => {
  let db: TestDatabase;
  const prefix = testPrefix();
  let t: TestService;
  let call: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    db = await createTestDatabase();
    t = await startTestService({ db, prefix });
    await t.seed(sandboxFixture());
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
    await dropPrefix(prefix);
    await db?.drop();
  });

  const sql = () => db.database.sql!;
  const orderRow = async (id: number) => (await sql()`select state, event_seq from orders where id = ${id}`)[0];

  /** Every read and command route that names an order or a shipment, with a body each would take. */
  function routesOf(orderId: number, shipmentId: number): Array<[string, string, object?]> {
    return [
      ['GET', `/v9/orders/${orderId}`],
      ['GET', `/v9/orders/${orderId}/events`],
      ['GET', `/v9/orders/${orderId}/delivery_evidence`],
      ['GET', `/v9/orders/${orderId}/delivery_issues`],
      ['POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 }],
      ['POST', `/v9/orders/${orderId}/reject`, { reviewer_id: 100, reason: 'tickets_unavailable' }],
      ['POST', `/v9/orders/${orderId}/cancel`, { reason: 'buyer_request' }],
      ['DELETE', `/v9/orders/${orderId}/cancel`],
      ['PUT', `/v9/orders/${orderId}`, { in_hand_on: '2030-01-02' }],
      ['POST', `/v9/orders/${orderId}/delivery_issues`, { reason: 'not_received' }],
      ['GET', `/v9/shipments/${shipmentId}`],
      ['PUT', `/v9/shipments/${shipmentId}`, { mobile_transfer_type: 'XMobileLink' }],
      ['PUT', `/v9/shipments/${shipmentId}/complete`, { x_mobile_link: 'https://x.test/c' }],
      ['GET', `/v9/shipments/${shipmentId}/etickets`],
      ['POST', `/v9/shipments/${shipmentId}/etickets/link`, {}],
      ['GET', `/v9/shipments/${shipmentId}/transfer_verifications`],
      ['GET', `/v9/shipments/${shipmentId}/airbill`],
      ['GET', `/v9/shipments/${shipmentId}/tracking_events`],
      ['PUT', `/v9/shipments/${shipmentId}/tracking`, { tracking_number: '1Z999AA10123456784' }],
      ['POST', `/v9/shipments/${shipmentId}/tracking_events`, { status: 'in_transit', occurred_at: new Date().toISOString() }],
    ];
  }

  const answer = (r: ApiResponse) => ({ status: r.status, code: r.body?.errors?.[0]?.code });

  /** The intruder's answer on each route is the stranger's, and the order did not move. */
  async function expectSeenAsStranger(intruder: Cred, orderId: number, shipmentId: number) {
    const before = await orderRow(orderId);
    for (const [method, path, body] of routesOf(orderId, shipmentId)) {
      const [theirs, strangers] = [await call(intruder, method, path, body), await call(STRANGER, method, path, body)];
      expect(answer(theirs), `${method} ${path}`).toEqual(answer(strangers));
      expect(theirs.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
    }
    expect((await call(intruder, 'GET', `/v9/orders/${orderId}`)).status).toBe(404);
    expect(await orderRow(orderId)).toEqual(before);
  }

  async function testOrder(cred: Cred, body: object): Promise<ApiResponse> {
    return call(cred, 'POST', '/v9/test_helpers/orders', body);
  }

  it('a test credential says it is one and acts for the sandbox twin of its brokerage', async () => {
    const me = await call(TEST_SELLER, 'GET', '/v9/credentials/current');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ token: TEST_SELLER.token, kind: 'api', livemode: false });
    const [twin] = await sql()`select id, livemode, sandbox_of from brokerages where sandbox_of = 1`;
    expect(me.body.brokerage_id).toBe(Number(twin!.id));
    expect(twin!.livemode).toBe(false);
    expect((await call(SELLER, 'GET', '/v9/credentials/current')).body).toMatchObject({ livemode: true, brokerage_id: 1 });
    // The twin mirrors the live offices, by name.
    const offices = await sql()`select name, sandbox_of from offices where brokerage_id = ${twin!.id} order by sandbox_of`;
    expect(offices.map((o) => [o.name, Number(o.sandbox_of)])).toEqual([
      ['Acme NYC', 10],
      ['Acme LA', 11],
    ]);
  });

  it('a test order where the caller sells: created, then taken through the real commands, with the live reviewer ids', async () => {
    const created = await testOrder(TEST_SELLER, { role: 'seller', delivery: 'tbd', quantity: 3, in_hand_on: '2030-03-01' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ state: 'pending', shipments: [] });
    expect(created.body.id).toBeGreaterThan(7_000_000_000_000_000);
    const id = created.body.id as number;
    expect(created.body).toEqual((await call(TEST_SELLER, 'GET', `/v9/orders/${id}`)).body);
    const [row] = await sql()`select o.buyer_brokerage_id, o.deliver_by, o.quantity, o.delivery, f.brokerage_id as seller from orders o
      join offices f on f.id = o.seller_office_id where o.id = ${id}`;
    expect(Number(row!.buyer_brokerage_id)).toBe(SIMULATED_BROKERAGE_ID);
    expect([row!.quantity, row!.delivery]).toEqual([3, 'tbd']);
    expect(row!.deliver_by).not.toBeNull();
    // Its deadline's timers were armed with it, not left for the sweep.
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const timers = new TimerQueue({ prefix, connection: redis });
    try {
      expect(await timers.queue.getJob(timerJobId(id, 'overdue'))).toBeDefined();
    } finally {
      await timers.queue.close();
      redis.disconnect();
    }
    const accepted = await call(TEST_SELLER, 'POST', `/v9/orders/${id}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const shipmentId = accepted.body.shipments[0].id as number;
    const updated = await call(TEST_SELLER, 'PUT', `/v9/shipments/${shipmentId}`, { mobile_transfer_type: 'XMobileLink' });
    expect(updated.status).toBe(200);
    const done = await call(TEST_SELLER, 'PUT', `/v9/shipments/${updated.body.id}/complete`, { x_mobile_link: 'https://x.test/t' });
    expect(done.status).toBe(200);
    expect((await call(TEST_SELLER, 'GET', `/v9/orders/${id}`)).body.state).toBe('completed');
    // A reviewer who is not a user of the live brokerage is refused, as in live mode.
    const other = await testOrder(TEST_SELLER, { role: 'seller' });
    const refused = await call(TEST_SELLER, 'POST', `/v9/orders/${other.body.id}/accept`, { reviewer_id: 300 });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('reviewer_id');
  });

  it('a test order where the caller buys: the simulated counterparty sells; the buyer reads it, no live party does', async () => {
    const created = await testOrder(TEST_BUYER, { role: 'buyer', delivery: 'local_pickup' });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect((await call(TEST_BUYER, 'GET', `/v9/orders/${id}`)).status).toBe(200);
    for (const live of [BUYER, SELLER, STRANGER]) expect((await call(live, 'GET', `/v9/orders/${id}`)).status).toBe(404);
    expect((await call(TEST_SELLER, 'GET', `/v9/orders/${id}`)).status).toBe(404);
  });

  it('a test credential gets, on every order and shipment route of a live order, what another brokerage gets', async () => {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    await expectSeenAsStranger(TEST_SELLER, ORDERS.tbd, accepted.body.shipments[0].id);
    await expectSeenAsStranger(TEST_BUYER, ORDERS.tbd, accepted.body.shipments[0].id);
  });

  it('a live credential gets, on every order and shipment route of a test order, what another brokerage gets', async () => {
    const created = await testOrder(TEST_SELLER, { role: 'seller' });
    const accepted = await call(TEST_SELLER, 'POST', `/v9/orders/${created.body.id}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    await expectSeenAsStranger(SELLER, created.body.id, accepted.body.shipments[0].id);
    await expectSeenAsStranger(BUYER, created.body.id, accepted.body.shipments[0].id);
  });

  it("the feed of each mode carries only that mode's orders", async () => {
    const created = await testOrder(TEST_SELLER, { role: 'seller' });
    expect((await call(TEST_SELLER, 'POST', `/v9/orders/${created.body.id}/accept`, { reviewer_id: 100 })).status).toBe(200);
    const live = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd2}/accept`, { reviewer_id: 100 });
    expect(live.status).toBe(200);
    const ordersIn = async (cred: Cred) => {
      const r = await call(cred, 'GET', '/v9/events?limit=1000');
      expect(r.status).toBe(200);
      return new Set(r.body.events.map((e: { order_id: number }) => e.order_id));
    };
    await until(
      'both accepts in their feeds',
      async () => (await ordersIn(TEST_SELLER)).has(created.body.id) && (await ordersIn(SELLER)).has(ORDERS.tbd2),
      10_000,
    );
    const [testFeed, liveFeed] = [await ordersIn(TEST_SELLER), await ordersIn(SELLER)];
    for (const id of testFeed) expect(id as number).toBeGreaterThan(7_000_000_000_000_000);
    for (const id of liveFeed) expect(id as number).toBeLessThan(7_000_000_000_000_000);
  });

  it('refuses what test helpers cannot do, with a sentence, changing nothing', async () => {
    const count = async () => Number((await sql()`select count(*) as n from orders`)[0]!.n);
    const before = await count();
    const live = await testOrder(SELLER, { role: 'seller' });
    expect(live.status).toBe(403);
    expect(live.body.errors[0].message).toMatch(/test credential/);
    const badRole = await testOrder(TEST_SELLER, { role: 'broker' });
    expect(badRole.status).toBe(400);
    expect(badRole.body.errors[0].field).toBe('role');
    const both = await testOrder(TEST_SELLER, { role: 'seller', in_hand_on: '2030-01-01', deliver_by: '2030-01-01T20:00:00Z' });
    expect(both.status).toBe(400);
    expect(both.body.errors[0].field).toBe('deliver_by');
    const badDate = await testOrder(TEST_SELLER, { role: 'seller', in_hand_on: '2030-02-30' });
    expect(badDate.status).toBe(400);
    expect(badDate.body.errors[0].field).toBe('in_hand_on');
    expect(await count()).toBe(before);
  });

  it('a test credential made by the CLI path shares the one twin; a sandbox brokerage cannot have one', async () => {
    const box = SecretBox.fromKey(randomBytes(32).toString('hex'));
    const made = await Promise.all([1, 2, 3].map(() => createCredential(db.database.db, box, { brokerageId: 1, mode: 'test' })));
    const twins = new Set(made.map((c) => c.brokerageId));
    expect(twins.size).toBe(1);
    expect((await sql()`select count(*)::int as n from brokerages where sandbox_of = 1`)[0]!.n).toBe(1);
    await expect(createCredential(db.database.db, box, { brokerageId: [...twins][0]!, mode: 'test' })).rejects.toThrow(/sandbox brokerage/);
  });
});

describe('SANDBOX=false: test mode off for a deployment', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    t = await startTestService({ env: { SANDBOX: 'false' } });
    await t.seed(sandboxFixture());
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('refuses test credentials with a sentence and has no test helper routes', async () => {
    const refused = await call(TEST_SELLER, 'GET', '/v9/credentials/current');
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0].message).toMatch(/test mode is turned off: SANDBOX=false/);
    expect((await call(SELLER, 'POST', '/v9/test_helpers/orders', { role: 'seller' })).status).toBe(404);
    expect((await call(SELLER, 'GET', '/v9/credentials/current')).status).toBe(200);
  });
});
