import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, ISO, type ApiResponse } from '../support/api.ts';
import { baseFixture, ORDERS, SELLER, SELLER_USER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { valueWithin } from '../support/value-within.ts';

// The contract's three flows end to end, each response checked key by key against the fields
// the contract shows for it (responses are trimmed: no key more, no key less).

describe('shipment flows', () => {
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

  const emailAddress = (address: string) => ({
    id: expect.any(Number),
    url: null,
    address,
    label: null,
    updated_at: expect.stringMatching(ISO),
  });
  const accept = (orderId: number, cred = SELLER) => call(cred, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
  const keys = (r: ApiResponse) => Object.keys(r.body).sort();

  it('flow 1, link delivery: accept → TBD → XMobileLink → complete with x_mobile_link', async () => {
    const accepted = await accept(ORDERS.tbd);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({
      id: ORDERS.tbd,
      oid: `1001-${ORDERS.tbd}`,
      state: 'accepted',
      shipments: [{ id: expect.any(Number), url: expect.stringMatching(/^\/shipments\/\d+$/), type: 'TBD' }],
      livemode: true,
    });
    const tbd = accepted.body.shipments[0];
    expect(tbd.url).toBe(`/shipments/${tbd.id}`);

    const updated = await call(SELLER, 'PUT', `/v9/shipments/${tbd.id}`, {
      mobile_transfer_type: 'XMobileLink',
      transfer_source: 'ticketmaster',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({
      id: expect.any(Number),
      url: `/shipments/${updated.body.id}`,
      type: 'XMobileLink',
      state: 'pending',
      livemode: true,
    });
    expect(updated.body.id).not.toBe(tbd.id);

    const completed = await call(SELLER, 'PUT', `/v9/shipments/${updated.body.id}/complete`, {
      x_mobile_link: 'https://claim.example.test/abc',
      transfer_source: 'ticketmaster',
    });
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({
      id: updated.body.id,
      url: `/shipments/${updated.body.id}`,
      type: 'XMobileLink',
      state: 'delivered',
      x_mobile_link: 'https://claim.example.test/abc',
      livemode: true,
    });
    const order = await t.db.database.sql!`select state from orders where id = ${ORDERS.tbd}`;
    expect(order[0]!.state).toBe('completed');
  });

  it('flow 2, transfer to an address: accept → XMobile with recipient → complete (link optional)', async () => {
    const accepted = await accept(ORDERS.tbd2, SELLER_USER);
    expect(accepted.status).toBe(200);
    const updated = await call(SELLER_USER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'XMobile' });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({
      id: expect.any(Number),
      url: `/shipments/${updated.body.id}`,
      type: 'XMobile',
      state: 'pending',
      ship_to_name: 'Bo Buyer',
      email_address: emailAddress('bo@example.test'),
      livemode: true,
    });
    // Keys come in the contract's order, also through the stored result.
    expect(Object.keys(updated.body)).toEqual(['id', 'url', 'type', 'state', 'ship_to_name', 'email_address', 'livemode']);
    expect(Object.keys(updated.body.email_address)).toEqual(['id', 'url', 'address', 'label', 'updated_at']);
    const completed = await call(SELLER, 'PUT', `/v9/shipments/${updated.body.id}/complete`);
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({
      id: updated.body.id,
      url: `/shipments/${updated.body.id}`,
      type: 'XMobile',
      state: 'delivered',
      livemode: true,
    });
  });

  it('flow 3, Flash-type: accept straight into XSeats with recipient → complete with no body', async () => {
    const accepted = await accept(ORDERS.flash);
    expect(accepted.status).toBe(200);
    const [shipment] = accepted.body.shipments;
    expect(shipment).toEqual({
      id: expect.any(Number),
      url: `/shipments/${shipment.id}`,
      type: 'XSeats',
      state: 'pending',
      ship_to_name: 'Bo Buyer',
      email_address: emailAddress('bo@example.test'),
    });
    const completed = await call(SELLER, 'PUT', `/v9/shipments/${shipment.id}/complete`);
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({
      id: shipment.id,
      url: `/shipments/${shipment.id}`,
      type: 'XSeats',
      state: 'delivered',
      livemode: true,
    });
  });

  it('accepts a local-pickup order into a LocalPickup shipment', async () => {
    const accepted = await accept(ORDERS.localPickup);
    expect(accepted.status).toBe(200);
    expect(accepted.body.shipments).toEqual([{ id: expect.any(Number), url: expect.any(String), type: 'LocalPickup' }]);
  });

  it('answers legacy type names with the new ones, and POST works for complete', async () => {
    const accepted = await accept(ORDERS.tbd3);
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'FlashSeats' });
    expect(updated.status).toBe(200);
    expect(keys(updated)).toEqual(['email_address', 'id', 'livemode', 'ship_to_name', 'state', 'type', 'url']);
    expect(updated.body.type).toBe('XSeats');
    const completed = await call(SELLER, 'POST', `/v9/shipments/${updated.body.id}/complete`, {});
    expect(completed.status).toBe(200);
    expect(completed.body.state).toBe('delivered');
  });

  it('keeps the whole history of an order across replacements, in sequence', async () => {
    const rows = await t.db.database.sql!`
      select seq, kind, from_type, to_type, to_state from shipment_events where order_id = ${ORDERS.tbd} order by seq`;
    expect(rows.map((r) => [r.seq, r.kind, r.from_type, r.to_type, r.to_state])).toEqual([
      [1, 'created', null, 'TBD', 'pending'],
      [2, 'updated', 'TBD', 'XMobileLink', 'pending'],
      [3, 'completed', 'XMobileLink', 'XMobileLink', 'delivered'],
    ]);
    // Each event was handed to the relay: once it drains none waits, and all three are in the seller's feed, once each.
    const sql = t.db.database.sql!;
    await valueWithin('the outbox drained', async () =>
      (await sql`select count(*)::int as n from event_feed where position is null`)[0]!.n === 0 ? true : undefined,
    );
    const fed = await sql`
      select e.seq from event_feed f join shipment_events e on e.id = f.event_row_id
      where e.order_id = ${ORDERS.tbd} and f.seller_brokerage_id = 1 order by f.position`;
    expect(fed.map((r) => r.seq)).toEqual([1, 2, 3]);
  });
});
