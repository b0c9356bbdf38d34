import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

// Every problem of a request in one answer (docs/API.md §Errors): cross-field rules and the
// order's own rules beside the field rules, each problem once; the ops pages list every bad filter.

const ORDER_IDS = [965, 966, 967];

describe('all errors at once', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    await t.seed(baseFixture(ORDER_IDS));
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });
  const fields = (body: { errors: { field?: string }[] }) => body.errors.map((e) => e.field);

  it('a bad in_hand_on is one problem, not two', async () => {
    const res = await call(SELLER, 'PUT', `/v9/orders/${ORDER_IDS[0]}`, { in_hand_on: 'next week' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { code: 'invalid_params', message: 'in_hand_on: must be a calendar date, YYYY-MM-DD', field: 'in_hand_on' },
    ]);
  });

  it('accept: a reviewer not of the brokerage and a wrong seats count, together; nothing changes', async () => {
    const res = await call(SELLER, 'POST', `/v9/orders/${ORDER_IDS[0]}/accept`, { reviewer_id: 999, seats: [1, 2, 3] });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(['reviewer_id', 'seats']);
    const order = await call(SELLER, 'GET', `/v9/orders/${ORDER_IDS[0]}`);
    expect(order.body.state).toBe('pending');
  });

  it("complete: a ticket's field error beside its exactly-one rule; the type's and the order's rules together", async () => {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDER_IDS[1]}/accept`, { reviewer_id: 100 });
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'XMobileLink' });
    expect(updated.status).toBe(200);
    const id = updated.body.id;
    const fieldRules = await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, { tickets: [{ seat: 1 }] });
    expect(fieldRules.status).toBe(400);
    expect(fields(fieldRules.body)).toEqual(['tickets.0.seat', 'tickets.0']);
    const orderRules = await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, { tickets: [{ seat: '1', barcode: 'A' }] });
    expect(orderRules.status).toBe(400);
    expect(fields(orderRules.body)).toEqual(['x_mobile_link', 'tickets']);
  });

  it("a body's rule across its fields beside its fields' rules: redeliver's exactly-one with a bad field", async () => {
    const endpoint = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: 'http://127.0.0.1:9/hook' });
    expect(endpoint.status).toBe(201);
    const res = await call(SELLER, 'POST', `/v9/webhook_endpoints/${endpoint.body.id}/redeliver`, { order_id: 'x', since: 'now' });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(['order_id', 'since', 'body']);
  });

  it('the ops order list names every bad filter on the page', async () => {
    const res = await fetch(`${t.url}/ops/orders?state=nope&seller_office=x&colour=red&limit=0&after=garbage`);
    expect(res.status).toBe(400);
    const text = await res.text();
    const problem = /<p class="problem" id="problem" role="alert">(.*?)<\/p>/s.exec(text)?.[1] ?? '';
    for (const said of [
      'colour: unknown filter',
      'state: one of',
      'seller_office: expected a positive integer id',
      'limit: expected',
      'after: expected',
    ]) {
      expect(problem).toContain(said);
    }
  });
});
