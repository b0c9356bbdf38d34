import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, BUYER_PICKUP_BODY, ISO, SELLER_PICKUP_BODY } from '../support/api.ts';
import { baseFixture, BUYER, ORDERS, SELLER, SELLER_USER, STRANGER } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

// GET /v9/orders/:id, /v9/shipments/:id and /v9/orders/:id/events for each role: the seller and
// the buyer of the order read it, another brokerage is told it does not exist.

/** What an order without an in-hand date (the standard fixture's) shows of its deadline and ending. */
const NO_DEADLINE = {
  in_hand_on: null,
  deliver_by: null,
  cancel_proposed_by: null,
  rejection_reason: null,
  rejection_notes: null,
  livemode: true,
  test_clock: null,
  holds: [],
  on_hold: false,
};

describe('read endpoints', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService();
    await t.seed(baseFixture());
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const notFound = (what: string) => ({ errors: [{ code: 'not_found', message: `${what} not found` }] });

  it('an order not yet accepted: state pending, no shipment; the same for seller and buyer', async () => {
    for (const cred of [SELLER, SELLER_USER, BUYER]) {
      const r = await call(cred, 'GET', `/v9/orders/${ORDERS.tbd3}`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ id: ORDERS.tbd3, oid: `1001-${ORDERS.tbd3}`, state: 'pending', ...NO_DEADLINE, shipments: [] });
      expect(Object.keys(r.body)).toEqual([
        'id',
        'oid',
        'state',
        'in_hand_on',
        'deliver_by',
        'cancel_proposed_by',
        'rejection_reason',
        'rejection_notes',
        'livemode',
        'test_clock',
        'shipments',
        'holds',
        'on_hold',
      ]);
    }
  });

  it('a stranger, an unknown id and a malformed id: 404, 404, 400', async () => {
    expect(await call(STRANGER, 'GET', `/v9/orders/${ORDERS.tbd3}`)).toMatchObject({ status: 404, body: notFound(`order ${ORDERS.tbd3}`) });
    expect(await call(SELLER, 'GET', '/v9/orders/999999')).toMatchObject({ status: 404, body: notFound('order 999999') });
    expect(await call(SELLER, 'GET', '/v9/shipments/999999')).toMatchObject({ status: 404, body: notFound('shipment 999999') });
    expect(await call(SELLER, 'GET', '/v9/orders/999999/events')).toMatchObject({ status: 404, body: notFound('order 999999') });
    const bad = await call(SELLER, 'GET', '/v9/orders/abc');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ errors: [{ code: 'invalid_params', message: 'id: must be a positive integer', field: 'id' }] });
    expect((await call(SELLER, 'GET', '/v9/shipments/0')).status).toBe(400);
  });

  it('reads are signed like every /v9 call: unsigned or wrongly signed is 401', async () => {
    const unsigned = await fetch(`${t.url}/v9/orders/${ORDERS.tbd}`);
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toEqual({ errors: [{ code: 'unauthorized', message: 'missing credentials' }] });
    const forged = await signedFetch(t.url, { token: BUYER.token, secret: SELLER.secret }, 'GET', `/v9/shipments/1`);
    expect(forged.status).toBe(401);
  });

  it('TBD → XMobile → complete: the order and the shipment read as the latest response showed them', async () => {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const tbd = accepted.body.shipments[0];
    const tbdView = { id: tbd.id, url: `/shipments/${tbd.id}`, type: 'TBD', state: 'pending' };
    for (const cred of [SELLER, BUYER]) {
      expect((await call(cred, 'GET', `/v9/orders/${ORDERS.tbd}`)).body).toEqual({
        id: ORDERS.tbd,
        oid: `1001-${ORDERS.tbd}`,
        state: 'accepted',
        ...NO_DEADLINE,
        shipments: [tbdView],
      });
      expect(await call(cred, 'GET', `/v9/shipments/${tbd.id}`)).toMatchObject({ status: 200, body: tbdView });
    }
    expect((await call(STRANGER, 'GET', `/v9/shipments/${tbd.id}`)).status).toBe(404);

    const updated = await call(SELLER, 'PUT', `/v9/shipments/${tbd.id}`, { mobile_transfer_type: 'XMobile' });
    expect(updated.status).toBe(200);
    const live = updated.body.id;
    for (const cred of [SELLER, BUYER]) {
      const read = await call(cred, 'GET', `/v9/shipments/${live}`);
      expect(read.status).toBe(200);
      // Byte for byte what the update answered, key order included, its mode (test mode) last in both.
      expect(read.body.livemode).toBe(true);
      expect(JSON.stringify(read.body)).toBe(JSON.stringify(updated.body));
      const old = await call(cred, 'GET', `/v9/shipments/${tbd.id}`);
      expect(old.status).toBe(410);
      expect(old.body).toEqual({
        errors: [{ code: 'shipment_replaced', message: `shipment was replaced by shipment ${live}; use the new id`, replaced_by: live }],
      });
    }
    // A stranger learns nothing about a replaced id either.
    expect(await call(STRANGER, 'GET', `/v9/shipments/${tbd.id}`)).toMatchObject({ status: 404, body: notFound(`shipment ${tbd.id}`) });
    expect(await call(STRANGER, 'GET', `/v9/shipments/${live}`)).toMatchObject({ status: 404 });

    const completed = await call(SELLER, 'PUT', `/v9/shipments/${live}/complete`, { x_mobile_link: 'https://claim.example.test/x' });
    expect(completed.status).toBe(200);
    const read = await call(BUYER, 'GET', `/v9/shipments/${live}`);
    expect(read.body).toEqual({ ...updated.body, state: 'delivered', x_mobile_link: 'https://claim.example.test/x', livemode: true });
    expect(Object.keys(read.body)).toEqual(['id', 'url', 'type', 'state', 'ship_to_name', 'email_address', 'x_mobile_link', 'livemode']);
    const order = await call(SELLER, 'GET', `/v9/orders/${ORDERS.tbd}`);
    expect(order.body.state).toBe('completed');
    // The order says the mode once: its shipment does not repeat it.
    const { livemode: _mode, ...inOrder } = read.body;
    expect(order.body.shipments).toEqual([inOrder]);
  });

  it('local pickup: the buyer finds its shipment id through the order, and both see both parties’ details', async () => {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.localPickup}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const found = await call(BUYER, 'GET', `/v9/orders/${ORDERS.localPickup}`);
    const first = found.body.shipments[0];
    expect(first).toEqual({
      id: accepted.body.shipments[0].id,
      url: `/shipments/${accepted.body.shipments[0].id}`,
      type: 'LocalPickup',
      state: 'pending',
      ship_from_name: null,
      ship_from_address: null,
      ship_from_phone_number: null,
      pickup_time_range: null,
      pickup_instructions: null,
      ship_to_name: null,
      phone_number: null,
      notes: null,
    });

    const buyer = await call(BUYER, 'PUT', `/v9/shipments/${first.id}`, BUYER_PICKUP_BODY);
    expect(buyer.status).toBe(200);
    const seller = await call(SELLER, 'PUT', `/v9/shipments/${buyer.body.id}`, SELLER_PICKUP_BODY);
    expect(seller.status).toBe(200);
    const views = await Promise.all([SELLER, BUYER].map((cred) => call(cred, 'GET', `/v9/shipments/${seller.body.id}`)));
    for (const view of views) {
      expect(view.status).toBe(200);
      const { id, url, type, livemode: _m, ...sellerPart } = seller.body;
      const { id: _i, url: _u, type: _t, livemode: _bm, ...buyerPart } = buyer.body;
      expect(JSON.stringify(view.body)).toBe(
        JSON.stringify({ id, url, type, state: 'delivered', ...sellerPart, ...buyerPart, livemode: true }),
      );
    }
    expect(views[0]!.body.ship_from_address).toMatchObject({ street_address: '1 Main St', country_code: 'US' });
    expect(views[1]!.body.phone_number).toEqual({ label: 'cell', country_code: '+1', number: '3125550199', extension: null });
  });

  it('events: the order’s history with its seq, paged by seq; each party sees its own command ids only', async () => {
    const all = await call(BUYER, 'GET', `/v9/orders/${ORDERS.localPickup}/events`);
    expect(all.status).toBe(200);
    expect(all.body.order_id).toBe(ORDERS.localPickup);
    expect(all.body.next_after_seq).toBeNull();
    const events = all.body.events;
    expect(events.map((e: { seq: number; kind: string; actor: { role: string } }) => [e.seq, e.kind, e.actor.role])).toEqual([
      [1, 'created', 'seller'],
      [2, 'pickup_details', 'buyer'],
      [3, 'delivered', 'seller'],
    ]);
    expect(Object.keys(events[0])).toEqual([
      'event_id',
      'seq',
      'kind',
      'shipment_id',
      'new_shipment_id',
      'from_type',
      'from_state',
      'to_type',
      'to_state',
      'details',
      'actor',
      'command_id',
      'at',
    ]);
    expect(events[0]).toMatchObject({
      shipment_id: null,
      from_type: null,
      to_type: 'LocalPickup',
      to_state: 'pending',
      at: expect.stringMatching(ISO),
    });
    expect(events[2]).toMatchObject({ from_state: 'pending', to_state: 'delivered', shipment_id: events[1].new_shipment_id });
    // The buyer sees its own command id, not the seller's, nor the seller's user.
    expect(events[0].command_id).toBeNull();
    expect(events[0].actor).toEqual({ type: 'party', role: 'seller', brokerage_id: 1, user_id: null });
    expect(events[1].command_id).toEqual(expect.any(String));
    const asSeller = await call(SELLER_USER, 'GET', `/v9/orders/${ORDERS.localPickup}/events`);
    expect(asSeller.body.events[0].command_id).toEqual(expect.any(String));
    expect(asSeller.body.events[1].command_id).toBeNull();
    expect(asSeller.body.events.map((e: { event_id: string }) => e.event_id)).toEqual(events.map((e: { event_id: string }) => e.event_id));

    const page1 = await call(SELLER, 'GET', `/v9/orders/${ORDERS.localPickup}/events?limit=2`);
    expect(page1.body.events.map((e: { seq: number }) => e.seq)).toEqual([1, 2]);
    expect(page1.body.next_after_seq).toBe(2);
    const page2 = await call(SELLER, 'GET', `/v9/orders/${ORDERS.localPickup}/events?limit=2&after_seq=2`);
    expect(page2.body.events.map((e: { seq: number }) => e.seq)).toEqual([3]);
    expect(page2.body.next_after_seq).toBeNull();
    const past = await call(SELLER, 'GET', `/v9/orders/${ORDERS.localPickup}/events?after_seq=3`);
    expect(past.body).toEqual({ order_id: ORDERS.localPickup, events: [], next_after_seq: null, livemode: true });

    expect(await call(STRANGER, 'GET', `/v9/orders/${ORDERS.localPickup}/events`)).toMatchObject({
      status: 404,
      body: notFound(`order ${ORDERS.localPickup}`),
    });
  });

  it('events: a bad page query is 400 naming the parameter', async () => {
    const cases: Array<[string, string]> = [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=abc', 'limit'],
      ['after_seq=-1', 'after_seq'],
      ['after_seq=1e3', 'after_seq'],
      ['after_seq=1&after_seq=2', 'after_seq'],
      ['page=2', 'page'],
    ];
    for (const [query, field] of cases) {
      const r = await call(SELLER, 'GET', `/v9/orders/${ORDERS.tbd}/events?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.errors[0]).toMatchObject({ code: 'invalid_params', field });
    }
  });
});
