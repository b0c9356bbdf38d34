import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATED_BROKERAGE_ID } from '../../src/sandbox/sandbox-twin.ts';
import { apiClient, type ApiResponse } from '../support/api.ts';
import { runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { b64, makePdf } from '../support/test-files.ts';
import { signedWith, startReceiver, until } from '../support/webhook-receiver.ts';

// Issue 55, the simulated counterparty: the other party of a test order acts through the real
// commands, so the order moves and its events and feed entries are written as for a real party.

const TEST_SELLER = { token: 'SimSellerTestToken00000000000001', secret: 'sim-seller-test-secret-00000000000000001' };
const TEST_BUYER = { token: 'SimBuyerTestToken000000000000002', secret: 'sim-buyer-test-secret-000000000000000002' };
const TEST_STRANGER = { token: 'SimStrangerTestToken000000000003', secret: 'sim-stranger-test-secret-000000000000003' };

function sandboxFixture() {
  const fixture = baseFixture();
  fixture.brokerages[0]!.credentials.push({ kind: 'api', mode: 'test', ...TEST_SELLER } as never);
  fixture.brokerages[1]!.credentials.push({ kind: 'api', mode: 'test', ...TEST_BUYER } as never);
  fixture.brokerages[2]!.credentials.push({ kind: 'api', mode: 'test', ...TEST_STRANGER } as never);
  return fixture;
}

type Cred = typeof SELLER;

describe('the simulated counterparty of a test order', () => {
  let db: TestDatabase;
  const prefix = testPrefix();
  let t: TestService;
  let call: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    db = await createTestDatabase();
    // The caller's webhook receiver is on this machine.
    t = await startTestService({ db, prefix, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    await t.seed(sandboxFixture());
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
    await dropPrefix(prefix);
    await db?.drop();
  });

  const sql = () => db.database.sql!;
  const act = (cred: Cred, orderId: number, body: object) => call(cred, 'POST', `/v9/test_helpers/orders/${orderId}/actions`, body);
  const ok = (r: ApiResponse, what: string) => expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBe(200);
  /** What an order is, to the last row: its state and the count of its events. */
  const orderRow = async (id: number) => (await sql()`select state, event_seq, snapshot from orders where id = ${id}`)[0];

  async function testOrder(cred: Cred, body: object): Promise<number> {
    const r = await call(cred, 'POST', '/v9/test_helpers/orders', body);
    expect(r.status).toBe(201);
    return r.body.id as number;
  }

  /** The caller sells and delivers two e-tickets (seats 1 and 2) through the real routes. */
  async function soldWithEtickets(): Promise<{ orderId: number; shipmentId: number }> {
    const orderId = await testOrder(TEST_SELLER, { role: 'seller', quantity: 2 });
    const accepted = await call(TEST_SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const updated = await call(TEST_SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'Eticket' });
    expect(updated.status).toBe(200);
    const shipmentId = updated.body.id as number;
    const etickets = [1, 2].map(async (i) => ({ eticket: b64(await makePdf(1, `seat ${i}`)), seat: String(i), barcode: `B-${i}` }));
    const uploaded = await call(TEST_SELLER, 'POST', `/v9/shipments/${shipmentId}/etickets`, { etickets: await Promise.all(etickets) });
    expect(uploaded.status).toBe(200);
    expect((await call(TEST_SELLER, 'PUT', `/v9/shipments/${shipmentId}/complete`, {})).status).toBe(200);
    return { orderId, shipmentId };
  }

  const kindsOf = async (cred: Cred, orderId: number): Promise<string[]> => {
    const r = await call(cred, 'GET', `/v9/orders/${orderId}/events?limit=1000`);
    expect(r.status).toBe(200);
    return r.body.events.map((e: { kind: string }) => e.kind);
  };

  it('the simulated buyer downloads the e-tickets and reports an issue: the real evidence, events, feed and webhooks', async () => {
    const receiver = await startReceiver();
    const hook = await call(TEST_SELLER, 'POST', '/v9/webhook_endpoints', { url: receiver.url, event_kinds: ['delivery_issue_opened'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const { orderId, shipmentId } = await soldWithEtickets();
    const downloaded = await act(TEST_SELLER, orderId, { action: 'download_etickets' });
    ok(downloaded, 'download_etickets');
    expect(downloaded.body).toMatchObject({
      action: 'download_etickets',
      simulated_party: 'buyer',
      order: { id: orderId, state: 'completed' },
    });
    const current = (await call(TEST_SELLER, 'GET', `/v9/shipments/${shipmentId}/etickets`)).body.etickets;
    expect(downloaded.body.steps).toEqual(
      current.map((e: { id: number; sha256: string }) => ({
        command: 'eticket.download',
        status: 200,
        body: { eticket_id: e.id, sha256: e.sha256 },
      })),
    );
    // The evidence of delivery lists each download, by the buyer, as a buyer's GET would leave it.
    const evidence = await call(TEST_SELLER, 'GET', `/v9/orders/${orderId}/delivery_evidence`);
    const downloads = evidence.body.timeline.filter((e: { what: string }) => e.what === 'eticket_downloaded');
    expect(downloads.map((d: { by: string; eticket_id: number }) => [d.by, d.eticket_id])).toEqual(
      current.map((e: { id: number }) => ['buyer', e.id]),
    );

    const reported = await act(TEST_SELLER, orderId, {
      action: 'report_issue',
      reason: 'invalid_barcode',
      seats: ['2'],
      notes: 'gate refused it',
    });
    ok(reported, 'report_issue');
    expect(reported.body.steps).toHaveLength(1);
    expect(reported.body.steps[0]).toMatchObject({ command: 'delivery_issue.open', status: 201 });
    expect(reported.body.steps[0].body).toMatchObject({ order_id: orderId, state: 'open', reason: 'invalid_barcode', seats: ['2'] });
    const issues = await call(TEST_SELLER, 'GET', `/v9/orders/${orderId}/delivery_issues`);
    expect(issues.body.delivery_issues).toHaveLength(1);
    expect(issues.body.delivery_issues[0]).toMatchObject({ state: 'open', notes: 'gate refused it' });
    expect(await kindsOf(TEST_SELLER, orderId)).toContain('delivery_issue_opened');
    // The feed of the caller's sandbox brokerage carries it, the simulated buyer its actor.
    const opened = async () => {
      const feed = await call(TEST_SELLER, 'GET', '/v9/events?limit=1000');
      return feed.body.events.find(
        (e: { order_id: number; type: string }) => e.order_id === orderId && e.type === 'order.delivery_issue_opened',
      );
    };
    await until('the issue in the feed', async () => (await opened()) !== undefined, 10_000);
    const event = await opened();
    expect(event).toMatchObject({
      livemode: false,
      data: { event: { actor: { type: 'party', role: 'buyer', brokerage_id: SIMULATED_BROKERAGE_ID } } },
    });

    // The caller's webhook endpoint (a test one) gets it too, signed as any delivery.
    try {
      await until('the issue delivered by webhook', () => receiver.acknowledged.some((r) => r.body.order_id === orderId), 15_000);
      const delivered = receiver.acknowledged.find((r) => r.body.order_id === orderId)!;
      expect(delivered.body).toMatchObject({ id: event.id, type: 'order.delivery_issue_opened', livemode: false });
      expect(signedWith(hook.body.secret, delivered)).toBe(true);
    } finally {
      await call(TEST_SELLER, 'DELETE', `/v9/webhook_endpoints/${hook.body.id}`);
      await receiver.close();
    }

    // The caller answers it; the simulated buyer escalates it, through the real step.
    const issueId = issues.body.delivery_issues[0].id as number;
    expect((await call(TEST_SELLER, 'POST', `/v9/delivery_issues/${issueId}/responses`, { notes: 'scan again' })).status).toBe(200);
    const escalated = await act(TEST_SELLER, orderId, { action: 'escalate_issue', notes: 'still refused' });
    ok(escalated, 'escalate_issue');
    expect(escalated.body.steps[0]).toMatchObject({
      command: 'delivery_issue.escalate',
      status: 200,
      body: { id: issueId, state: 'escalated' },
    });
    expect(await kindsOf(TEST_SELLER, orderId)).toContain('delivery_issue_escalated');
  });

  it('the simulated seller accepts and ships e-tickets: the order completes, the buyer reads the files', async () => {
    const orderId = await testOrder(TEST_BUYER, { role: 'buyer', delivery: 'tbd', quantity: 3 });
    const accepted = await act(TEST_BUYER, orderId, { action: 'accept' });
    ok(accepted, 'accept');
    expect(accepted.body).toMatchObject({ simulated_party: 'seller', order: { state: 'accepted' } });
    expect(accepted.body.steps.map((s: { command: string; status: number }) => [s.command, s.status])).toEqual([['order.accept', 200]]);
    const shipped = await act(TEST_BUYER, orderId, { action: 'ship' });
    ok(shipped, 'ship');
    expect(shipped.body.steps.map((s: { command: string; status: number }) => [s.command, s.status])).toEqual([
      ['shipment.update', 200],
      ['shipment.etickets', 200],
      ['shipment.complete', 200],
    ]);
    expect(shipped.body.order).toMatchObject({ state: 'completed', shipments: [{ type: 'Eticket', state: 'delivered' }] });
    const read = await call(TEST_BUYER, 'GET', `/v9/orders/${orderId}`);
    expect(read.body).toEqual(shipped.body.order);
    const shipmentId = read.body.shipments[0].id as number;
    const files = await call(TEST_BUYER, 'GET', `/v9/shipments/${shipmentId}/etickets`);
    expect(files.body.etickets.map((e: { seat: string; pages: number }) => [e.seat, e.pages])).toEqual([
      ['1', 1],
      ['2', 1],
      ['3', 1],
    ]);
    const pdf = await fetch(`${t.url}/v9/shipments/${shipmentId}/etickets/${files.body.etickets[0].id}`);
    expect(pdf.status).toBe(401); // the files are the parties' (signed), as any e-ticket's
    expect(await kindsOf(TEST_BUYER, orderId)).toEqual(['created', 'updated', 'etickets_uploaded', 'completed']);

    // Then the buyer (the caller) reports an issue and the simulated seller reissues new files.
    expect((await call(TEST_BUYER, 'POST', `/v9/orders/${orderId}/delivery_issues`, { reason: 'wrong_tickets' })).status).toBe(201);
    const reissued = await act(TEST_BUYER, orderId, { action: 'reissue', notes: 'the right ones' });
    ok(reissued, 'reissue');
    expect(reissued.body.steps[0]).toMatchObject({
      command: 'shipment.reissue',
      status: 200,
      body: { delivery_issue: { state: 'seller_responded' } },
    });
    const after = await call(TEST_BUYER, 'GET', `/v9/shipments/${shipmentId}/etickets`);
    expect(after.body.uploads).toHaveLength(2);
    expect(after.body.etickets.map((e: { id: number }) => e.id)).not.toEqual(files.body.etickets.map((e: { id: number }) => e.id));
  });

  it('a flash order is shipped as the transfer it is; a local pickup completes when both parties gave their details', async () => {
    const flash = await testOrder(TEST_BUYER, { role: 'buyer', delivery: 'flash' });
    ok(await act(TEST_BUYER, flash, { action: 'accept' }), 'accept');
    const shipped = await act(TEST_BUYER, flash, { action: 'ship' });
    ok(shipped, 'ship');
    expect(shipped.body.steps.map((s: { command: string }) => s.command)).toEqual(['shipment.complete']);
    expect(shipped.body.order).toMatchObject({ state: 'completed', shipments: [{ type: 'XSeats', state: 'delivered' }] });

    // The caller sells a local pickup; the simulated buyer gives its pickup details.
    const pickup = await testOrder(TEST_SELLER, { role: 'seller', delivery: 'local_pickup' });
    const accepted = await call(TEST_SELLER, 'POST', `/v9/orders/${pickup}/accept`, { reviewer_id: 100 });
    const mine = await call(TEST_SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, {
      ship_from_name: 'Sam Seller',
      ship_from_phone_number_attributes: { country_code: '+1', number: '2125550100' },
      ship_from_address_attributes: {
        name: 'Box',
        street_address: '1 Main St',
        locality: 'New York',
        region: 'NY',
        postal_code: '10001',
        country_code: 'US',
      },
      pickup_time_range: '6pm-7pm',
    });
    expect(mine.status).toBe(200);
    const theirs = await act(TEST_SELLER, pickup, { action: 'update_pickup', notes: 'arriving late' });
    ok(theirs, 'update_pickup');
    expect(theirs.body.order).toMatchObject({
      state: 'completed',
      shipments: [{ type: 'LocalPickup', state: 'delivered', notes: 'arriving late' }],
    });
  });

  it('cancellations both ways, the seller answering an issue, and a transfer that needs no acceptance', async () => {
    // The simulated buyer confirms the caller's proposal; accepting one that is not there is refused before any command.
    const sold = await testOrder(TEST_SELLER, { role: 'seller' });
    expect((await call(TEST_SELLER, 'POST', `/v9/orders/${sold}/accept`, { reviewer_id: 100 })).status).toBe(200);
    const none = await act(TEST_SELLER, sold, { action: 'accept_cancel' });
    expect([none.status, none.body.errors[0].code]).toEqual([422, 'invalid_transition']);
    expect((await call(TEST_SELLER, 'POST', `/v9/orders/${sold}/cancel`, { reason: 'venue closed' })).status).toBe(200);
    const confirmed = await act(TEST_SELLER, sold, { action: 'accept_cancel' });
    ok(confirmed, 'accept_cancel');
    expect(confirmed.body.order.state).toBe('canceled');
    expect(await kindsOf(TEST_SELLER, sold)).toEqual(expect.arrayContaining(['cancel_proposed', 'canceled']));

    // The simulated buyer proposes; the caller confirms with the real route.
    const other = await testOrder(TEST_SELLER, { role: 'seller' });
    expect((await call(TEST_SELLER, 'POST', `/v9/orders/${other}/accept`, { reviewer_id: 100 })).status).toBe(200);
    const proposed = await act(TEST_SELLER, other, { action: 'propose_cancel', reason: 'plans changed' });
    ok(proposed, 'propose_cancel');
    expect(proposed.body.order).toMatchObject({ state: 'cancel_proposed', cancel_proposed_by: 'buyer' });
    expect((await call(TEST_SELLER, 'POST', `/v9/orders/${other}/cancel`, {})).body.state).toBe('canceled');

    // The caller buys, reports an issue; the simulated seller answers it; the caller resolves it.
    const bought = await testOrder(TEST_BUYER, { role: 'buyer', delivery: 'flash' });
    ok(await act(TEST_BUYER, bought, { action: 'accept' }), 'accept');
    ok(await act(TEST_BUYER, bought, { action: 'ship' }), 'ship');
    const issue = await call(TEST_BUYER, 'POST', `/v9/orders/${bought}/delivery_issues`, { reason: 'transfer_not_accepted' });
    expect(issue.status).toBe(201);
    const answered = await act(TEST_BUYER, bought, { action: 'respond_issue', notes: 'sent to your address' });
    ok(answered, 'respond_issue');
    const read = await call(TEST_BUYER, 'GET', `/v9/delivery_issues/${issue.body.id}`);
    expect(read.body).toMatchObject({ state: 'seller_responded', responses: [{ kind: 'response', notes: 'sent to your address' }] });

    // accept_transfer on a transfer the seller completed: a buyer's confirmation is refused (D-191).
    const { orderId } = await soldWithEtickets();
    const before = await orderRow(orderId);
    const transfer = await act(TEST_SELLER, orderId, { action: 'accept_transfer' });
    expect(transfer.status).toBe(422);
    expect(transfer.body.errors[0].message).toMatch(/receipt is confirmed for an accepted order whose mailed envelope is shipped/);
    expect(await orderRow(orderId)).toEqual(before);
  });

  it("an action the order's state does not allow answers the real party's refusal, and changes nothing", async () => {
    // The caller's own accept of a completed order, and the simulated seller's: the same refusal.
    const { orderId: mine } = await soldWithEtickets();
    const real = await call(TEST_SELLER, 'POST', `/v9/orders/${mine}/accept`, { reviewer_id: 100 });
    expect(real.status).toBe(422);
    const bought = await testOrder(TEST_BUYER, { role: 'buyer' });
    ok(await act(TEST_BUYER, bought, { action: 'accept' }), 'accept');
    ok(await act(TEST_BUYER, bought, { action: 'ship' }), 'ship');
    const before = await orderRow(bought);
    const refused = await act(TEST_BUYER, bought, { action: 'accept' });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual(JSON.parse(JSON.stringify(real.body).replaceAll(String(mine), String(bought))));
    expect(await orderRow(bought)).toEqual(before);

    // A buyer's issue on a pending order: the delivery issue command's own 422.
    const pending = await testOrder(TEST_SELLER, { role: 'seller' });
    const before2 = await orderRow(pending);
    const early = await act(TEST_SELLER, pending, { action: 'report_issue', reason: 'not_received' });
    expect(early.status).toBe(422);
    expect(early.body.errors[0]).toMatchObject({ code: 'invalid_transition' });
    expect(early.body.errors[0].message).toMatch(/pending/);
    expect(await orderRow(pending)).toEqual(before2);
    expect((await sql()`select count(*)::int as n from delivery_issues where order_id = ${pending}`)[0]!.n).toBe(0);

    // A field the command refuses is its 400, naming the field.
    const badReason = await act(TEST_SELLER, pending, { action: 'report_issue', reason: 'lost' });
    expect(badReason.status).toBe(400);
    expect(badReason.body.errors[0].field).toBe('reason');
    expect(await orderRow(pending)).toEqual(before2);
  });

  it('an unknown action is 400 naming those of the simulated side; a live credential 403; an order not yours 404', async () => {
    const sold = await testOrder(TEST_SELLER, { role: 'seller' });
    const before = await orderRow(sold);
    const wrongSide = await act(TEST_SELLER, sold, { action: 'ship' });
    expect(wrongSide.status).toBe(400);
    expect(wrongSide.body.errors[0]).toMatchObject({ code: 'invalid_params', field: 'action' });
    expect(wrongSide.body.errors[0].message).toContain(
      'download_etickets, accept_transfer, report_issue, resolve_issue, escalate_issue, propose_cancel, accept_cancel, update_pickup',
    );
    const unknown = await act(TEST_BUYER, await testOrder(TEST_BUYER, { role: 'buyer' }), { action: 'dance' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].message).toContain('accept, reject, ship, respond_issue, reissue');
    const missing = await act(TEST_SELLER, sold, {});
    expect([missing.status, missing.body.errors[0].field]).toEqual([400, 'action']);

    const live = await act(SELLER, sold, { action: 'report_issue', reason: 'not_received' });
    expect(live.status).toBe(403);
    expect(live.body.errors[0].message).toMatch(/test credential/);

    // Another brokerage's test order, and a live order: what GET /v9/orders/:id answers them.
    for (const [cred, id] of [
      [TEST_STRANGER, sold],
      [TEST_BUYER, sold],
      [TEST_SELLER, ORDERS.tbd],
    ] as const) {
      const r = await act(cred, id, { action: 'download_etickets' });
      const read = await call(cred, 'GET', `/v9/orders/${id}`);
      expect([r.status, r.body]).toEqual([404, read.body]);
    }
    expect(await orderRow(sold)).toEqual(before);
  });

  it('fulfil sandbox order and act: the same helpers from the terminal, exit 0 on success and 1 on a refusal', async () => {
    const creds = ['--token', TEST_BUYER.token, '--secret', TEST_BUYER.secret, '--base', t.url];
    const made = await runCli(['sandbox', 'order', '--role', 'buyer', '--delivery', 'flash', '--quantity', '1', ...creds]);
    expect(made.code, made.text).toBe(0);
    expect(made.lines[0]).toBe('201 Created');
    const order = JSON.parse(made.stdout.slice(made.stdout.indexOf('\n') + 1));
    expect(order).toMatchObject({ state: 'pending', shipments: [] });
    const rejected = await runCli(['sandbox', 'act', String(order.id), 'reject', '--fields', '{"rejection_notes":"sold out"}', ...creds]);
    expect(rejected.code, rejected.text).toBe(0);
    const answer = JSON.parse(rejected.stdout.slice(rejected.stdout.indexOf('\n') + 1));
    expect(answer.order).toMatchObject({ state: 'rejected', rejection_reason: 'Test Order', rejection_notes: 'sold out' });
    const again = await runCli(['sandbox', 'act', String(order.id), 'accept', ...creds]);
    expect(again.code).toBe(1);
    expect(again.lines[0]).toBe('422 Unprocessable Entity');
    const usage = await runCli(['sandbox', 'order', '--role', 'broker', ...creds]);
    expect(usage.code).not.toBe(0);
    expect(usage.text).toMatch(/--role: expected seller or buyer/);
  });
});

describe('SANDBOX=false: no simulated party', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { SANDBOX: 'false' } });
    await t.seed(sandboxFixture());
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('the actions route does not exist', async () => {
    const r = await apiClient(t.url)(SELLER, 'POST', `/v9/test_helpers/orders/${ORDERS.tbd}/actions`, { action: 'accept' });
    expect(r.status).toBe(404);
  });
});
