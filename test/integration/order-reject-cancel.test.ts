import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REJECTION_REASONS } from '@fulfil/contract';
import { apiClient } from '../support/api.ts';
import { baseFixture, BUYER, ORDERS, SELLER, STRANGER } from '../support/fixtures.ts';
import { openApiChecker } from '../support/openapi-check.ts';
import { startPartyEndpoints } from '../support/party-webhooks.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { until } from '../support/webhook-receiver.ts';

// Reject and the cancellation handshake, from both sides: each step is a command of one party,
// refused with the contract's error shape when it does not fit, and each event reaches both
// parties by webhook and in their feeds.

const REJECT = 710;
const CANCEL_BY_SELLER = 711;
const CANCEL_BY_BUYER = 712;
const WITHDRAWN = 713;
const REFUSALS = 714;

describe('orders a seller cannot fill: reject and cancel', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let endpoints: Awaited<ReturnType<typeof startPartyEndpoints>>;
  let check: (method: string, path: string, status: number, body: unknown) => void;
  beforeAll(async () => {
    t = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', RELAY_INTERVAL_MS: '50' } });
    await t.seed(baseFixture([REJECT, CANCEL_BY_SELLER, CANCEL_BY_BUYER, WITHDRAWN, REFUSALS]));
    call = apiClient(t.url);
    endpoints = await startPartyEndpoints(call);
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as Parameters<typeof openApiChecker>[0];
    const checker = openApiChecker(doc);
    check = (method, path, status, body) => checker.check(method, path, status, body);
  });
  afterAll(async () => {
    await endpoints?.close();
    await t?.stop();
  });

  /** Every party got the order's events, by webhook and in its feed, in this order. */
  async function bothPartiesSaw(orderId: number, types: string[]) {
    for (const p of endpoints.parties) {
      await until(
        `${p.party}: webhooks of order ${orderId}`,
        () => p.receiver.acknowledged.filter((r) => r.body.order_id === orderId).length >= types.length,
      );
      const hooks = p.receiver.acknowledged.filter((r) => r.body.order_id === orderId).map((r) => r.body.type);
      expect(hooks, p.party).toEqual(types);
      let feed: string[] = [];
      await until(`${p.party}: feed of order ${orderId}`, async () => {
        const r = await call(p.credential, 'GET', '/v9/events?limit=1000');
        check('GET', '/v9/events', r.status, r.body);
        feed = r.body.events.filter((e: { order_id: number }) => e.order_id === orderId).map((e: { type: string }) => e.type);
        return feed.length >= types.length;
      });
      expect(feed, p.party).toEqual(types);
    }
  }

  it('the seller rejects a pending order with a reason from the list; accepting it afterwards is 422', async () => {
    const path = `/v9/orders/${REJECT}/reject`;
    const body = { reviewer_id: 100, reason: 'Tickets No Longer Available', rejection_notes: 'sold out at the box office' };
    const byBuyer = await call(BUYER, 'POST', path, body);
    expect(byBuyer.status).toBe(403);
    expect(byBuyer.body.errors[0].message).toBe('only the seller may reject an order');
    expect((await call(STRANGER, 'POST', path, body)).status).toBe(404);
    const badReason = await call(SELLER, 'POST', path, { ...body, reason: 'tickets no longer available' });
    expect(badReason.status).toBe(400);
    expect(badReason.body.errors[0]).toMatchObject({ code: 'invalid_params', field: 'reason' });
    expect((await call(SELLER, 'POST', path, { ...body, reviewer_id: 200 })).body.errors[0]).toMatchObject({ field: 'reviewer_id' });

    const rejected = await call(SELLER, 'POST', path, body);
    check('POST', '/v9/orders/{id}/reject', rejected.status, rejected.body);
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      id: REJECT,
      state: 'rejected',
      rejection_reason: 'Tickets No Longer Available',
      rejection_notes: 'sold out at the box office',
    });
    const accept = await call(SELLER, 'POST', `/v9/orders/${REJECT}/accept`, { reviewer_id: 100 });
    expect(accept.status).toBe(422);
    expect(accept.body.errors[0].message).toBe('order is rejected; it cannot be accepted');
    const again = await call(SELLER, 'POST', path, { ...body, reason: 'Other' });
    expect(again.status).toBe(422);

    const read = await call(BUYER, 'GET', `/v9/orders/${REJECT}`);
    check('GET', '/v9/orders/{id}', read.status, read.body);
    expect(read.body).toMatchObject({ state: 'rejected', rejection_reason: 'Tickets No Longer Available', shipments: [] });
    const history = await call(BUYER, 'GET', `/v9/orders/${REJECT}/events`);
    check('GET', '/v9/orders/{id}/events', history.status, history.body);
    expect(history.body.events).toHaveLength(1);
    expect(history.body.events[0]).toMatchObject({
      kind: 'rejected',
      shipment_id: null,
      new_shipment_id: null,
      to_type: null,
      to_state: null,
      details: { reason: 'Tickets No Longer Available', rejection_notes: 'sold out at the box office' },
    });
    await bothPartiesSaw(REJECT, ['order.rejected']);
    expect(REJECTION_REASONS).toContain('Tickets Priced Incorrectly');
  });

  it('the seller proposes, the buyer confirms: the order and its shipment are canceled', async () => {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${CANCEL_BY_SELLER}/accept`, { reviewer_id: 100 });
    const shipmentId = accepted.body.shipments[0].id;
    const proposed = await call(SELLER, 'POST', `/v9/orders/${CANCEL_BY_SELLER}/cancel`, { reason: 'event postponed', notes: 'sorry' });
    check('POST', '/v9/orders/{id}/cancel', proposed.status, proposed.body);
    expect(proposed.body).toMatchObject({ state: 'cancel_proposed', cancel_proposed_by: 'seller' });

    // While proposed, the shipment waits for the answer.
    const update = await call(SELLER, 'PUT', `/v9/shipments/${shipmentId}`, { mobile_transfer_type: 'XMobileLink' });
    expect(update.status).toBe(422);
    expect(update.body.errors[0].message).toBe(
      `order ${CANCEL_BY_SELLER} is cancel_proposed by the seller: its shipment cannot change until the buyer confirms the cancellation or the seller withdraws it`,
    );
    const twice = await call(SELLER, 'POST', `/v9/orders/${CANCEL_BY_SELLER}/cancel`, {});
    expect(twice.status).toBe(422);
    expect(twice.body.errors[0].message).toBe('order is cancel_proposed by the seller; the buyer must confirm or the seller withdraw');
    expect((await call(BUYER, 'DELETE', `/v9/orders/${CANCEL_BY_SELLER}/cancel`)).status).toBe(422);

    const confirmed = await call(BUYER, 'POST', `/v9/orders/${CANCEL_BY_SELLER}/cancel`, { reason: 'agreed' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ state: 'canceled', cancel_proposed_by: null });
    const read = await call(SELLER, 'GET', `/v9/orders/${CANCEL_BY_SELLER}`);
    check('GET', '/v9/orders/{id}', read.status, read.body);
    expect(read.body.shipments).toEqual([expect.objectContaining({ id: shipmentId, state: 'canceled' })]);
    const complete = await call(SELLER, 'PUT', `/v9/shipments/${shipmentId}/complete`, {});
    expect(complete.status).toBe(422);
    expect((await call(SELLER, 'POST', `/v9/orders/${CANCEL_BY_SELLER}/cancel`, {})).status).toBe(422);

    const history = (await call(BUYER, 'GET', `/v9/orders/${CANCEL_BY_SELLER}/events`)).body.events;
    expect(history.map((e: { kind: string }) => e.kind)).toEqual(['created', 'cancel_proposed', 'canceled']);
    expect(history[1]).toMatchObject({
      actor: { type: 'party', role: 'seller' },
      details: { reason: 'event postponed', notes: 'sorry', proposed_by: 'seller' },
      to_state: 'pending',
    });
    expect(history[2]).toMatchObject({ actor: { role: 'buyer' }, shipment_id: shipmentId, from_state: 'pending', to_state: 'canceled' });
    await bothPartiesSaw(CANCEL_BY_SELLER, ['shipment.created', 'order.cancel_proposed', 'order.canceled']);
  });

  it('the buyer proposes, the seller confirms', async () => {
    await call(SELLER, 'POST', `/v9/orders/${CANCEL_BY_BUYER}/accept`, { reviewer_id: 100 });
    const proposed = await call(BUYER, 'POST', `/v9/orders/${CANCEL_BY_BUYER}/cancel`);
    expect(proposed.body).toMatchObject({ state: 'cancel_proposed', cancel_proposed_by: 'buyer' });
    const confirmed = await call(SELLER, 'POST', `/v9/orders/${CANCEL_BY_BUYER}/cancel`, {});
    expect(confirmed.body.state).toBe('canceled');
    await bothPartiesSaw(CANCEL_BY_BUYER, ['shipment.created', 'order.cancel_proposed', 'order.canceled']);
  });

  it('the proposer withdraws; the order goes on to completion', async () => {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${WITHDRAWN}/accept`, { reviewer_id: 100 });
    await call(BUYER, 'POST', `/v9/orders/${WITHDRAWN}/cancel`, {});
    const bySeller = await call(SELLER, 'DELETE', `/v9/orders/${WITHDRAWN}/cancel`);
    expect(bySeller.status).toBe(422);
    expect(bySeller.body.errors[0].message).toBe('order is cancel_proposed by the buyer; only the buyer may withdraw it');
    const withdrawn = await call(BUYER, 'DELETE', `/v9/orders/${WITHDRAWN}/cancel`);
    check('DELETE', '/v9/orders/{id}/cancel', withdrawn.status, withdrawn.body);
    expect(withdrawn.body).toMatchObject({ state: 'accepted', cancel_proposed_by: null });
    const shipmentId = accepted.body.shipments[0].id;
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${shipmentId}`, { mobile_transfer_type: 'XMobileLink' });
    expect(updated.status).toBe(200);
    const done = await call(SELLER, 'PUT', `/v9/shipments/${updated.body.id}/complete`, { x_mobile_link: 'https://t.example.test/1' });
    expect(done.status).toBe(200);
    expect((await call(BUYER, 'POST', `/v9/orders/${WITHDRAWN}/cancel`, {})).body.errors[0]).toMatchObject({
      code: 'invalid_transition',
      message: 'order is completed; only an accepted order can be canceled',
    });
    await bothPartiesSaw(WITHDRAWN, [
      'shipment.created',
      'order.cancel_proposed',
      'order.cancel_withdrawn',
      'shipment.updated',
      'shipment.completed',
    ]);
  });

  it('refuses what does not fit, changing nothing', async () => {
    // A pending order cannot be canceled; an unknown field or a stranger's call is refused.
    const pending = await call(BUYER, 'POST', `/v9/orders/${REFUSALS}/cancel`, {});
    expect(pending.status).toBe(422);
    expect(pending.body.errors[0].message).toBe('order is pending; only an accepted order can be canceled');
    expect((await call(SELLER, 'POST', `/v9/orders/${REFUSALS}/cancel`, { why: 'x' })).body.errors[0]).toMatchObject({
      code: 'invalid_params',
    });
    expect((await call(STRANGER, 'POST', `/v9/orders/${REFUSALS}/cancel`, {})).status).toBe(404);
    expect((await call(STRANGER, 'DELETE', `/v9/orders/${REFUSALS}/cancel`)).status).toBe(404);
    await call(SELLER, 'POST', `/v9/orders/${REFUSALS}/accept`, { reviewer_id: 100 });
    const rejectAccepted = await call(SELLER, 'POST', `/v9/orders/${REFUSALS}/reject`, { reviewer_id: 100, reason: 'Other' });
    expect(rejectAccepted.status).toBe(422);
    expect(rejectAccepted.body.errors[0].message).toBe('order is accepted; only a pending order can be rejected');
    const read = await call(SELLER, 'GET', `/v9/orders/${ORDERS.tbd}`);
    expect(read.body.state).toBe('pending');
    expect((await call(SELLER, 'GET', `/v9/orders/${REFUSALS}`)).body.state).toBe('accepted');
  });
});
