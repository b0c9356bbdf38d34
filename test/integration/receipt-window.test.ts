import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FulfilmentClient } from '../../src/index.ts';
import { apiClient } from '../support/api.ts';
import { baseFixture, BUYER, SELLER } from '../support/fixtures.ts';
import { ADDRESS, inSeconds } from '../support/mailed-world.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { until } from '../support/webhook-receiver.ts';

// Without any carrier account, the seller's `delivered` on a shipped envelope is a claim that
// waits for the buyer (D-156): the buyer confirms receipt or opens a delivery issue; unchallenged
// when DELIVERY_CONFIRMATION_WINDOW ends (a durable timer, near here), the order completes with
// `completed_by: "unchallenged_claim"`.

const ORDER_IDS = Array.from({ length: 8 }, (_, i) => 5700 + i);
const USPS = ['9400111202555842332669', '9400111202555842332676', '9400111202555842332683', '9400111202555842332690'];

describe('the buyer confirmation window', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let next = 0;
  beforeAll(async () => {
    t = await startTestService({ env: { DELIVERY_CONFIRMATION_WINDOW: '3s' } });
    await t.seed(baseFixture(ORDER_IDS));
    call = apiClient(t.url);
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
  });

  const state = async (orderId: number) => {
    const [row] = await t.db.database.sql!`select o.state as "order", s.state as shipment, o.receipt_confirm_by as "confirmBy"
      from orders o join shipments s on s.order_id = o.id and s.replaced_by is null where o.id = ${orderId}`;
    return row as unknown as { order: string; shipment: string; confirmBy: Date | null };
  };

  /** A USPS envelope shipped, and the seller's word that it was delivered. */
  async function claimed() {
    const orderId = ORDER_IDS[next]!;
    const number = USPS[next++ % USPS.length]!;
    const accepted = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    const mailed = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, {
      type: 'USPS',
      ship_to_address_attributes: ADDRESS,
    });
    const id = mailed.body.id as number;
    expect((await call(SELLER, 'PUT', `/v9/shipments/${id}/tracking`, { tracking_number: number })).status).toBe(200);
    expect((await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {})).body.state).toBe('in_transit');
    const before = Date.now();
    const claim = await call(SELLER, 'POST', `/v9/shipments/${id}/tracking_events`, { status: 'delivered', occurred_at: inSeconds(0) });
    expect(claim.status, JSON.stringify(claim.body)).toBe(200);
    expect(claim.body).toMatchObject({ state: 'in_transit', tracking_event: { source: 'seller', seller_claim: true } });
    expect(Date.parse(claim.body.confirm_receipt_by)).toBeGreaterThanOrEqual(before + 3000 - 1000);
    expect(await state(orderId)).toMatchObject({ order: 'accepted', shipment: 'in_transit' });
    return { orderId, id };
  }

  const delivered = async (orderId: number) =>
    (await call(BUYER, 'GET', `/v9/orders/${orderId}/events`)).body.events.find((e: any) => e.kind === 'delivered');

  it('unchallenged at the window’s end, the order completes on the seller’s word, completed_by unchallenged_claim', async () => {
    const { orderId } = await claimed();
    await until('the window to end', async () => (await state(orderId)).order === 'completed', 20_000);
    expect(await state(orderId)).toMatchObject({ shipment: 'delivered', confirmBy: null });
    expect(await delivered(orderId)).toMatchObject({
      actor: { type: 'system', reason: 'unchallenged_claim' },
      details: { completed_by: 'unchallenged_claim', scan: { status: 'delivered', source: 'seller' } },
    });
  });

  it('the buyer confirms receipt: completed at once, completed_by buyer_confirmed; the seller may not confirm', async () => {
    const { orderId } = await claimed();
    expect((await call(SELLER, 'POST', `/v9/orders/${orderId}/confirm_receipt`)).status).toBe(403);
    const confirmed = await call(BUYER, 'POST', `/v9/orders/${orderId}/confirm_receipt`);
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    expect(confirmed.body.state).toBe('completed');
    expect(await state(orderId)).toMatchObject({ order: 'completed', shipment: 'delivered', confirmBy: null });
    expect(await delivered(orderId)).toMatchObject({ details: { completed_by: 'buyer_confirmed' } });
    expect((await call(BUYER, 'POST', `/v9/orders/${orderId}/confirm_receipt`)).status).toBe(422);
  });

  it('the producer client confirms receipt as the buyer, with the HTTP call’s answer', async () => {
    const { orderId } = await claimed();
    const client = new FulfilmentClient({ redisUrl: t.config.REDIS_URL, prefix: t.prefix, defaultTimeoutMs: 15_000 });
    try {
      const done = await client.confirmOrderReceipt({ order_id: orderId }, { brokerageId: 2, await: true });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body).toMatchObject({ state: 'completed' });
    } finally {
      await client.close();
    }
  });

  it('a delivery issue opened within the window stops it: the order stays open for the issue to decide', async () => {
    const { orderId } = await claimed();
    await t.db.database.sql!`update orders set deliver_by = ${new Date(Date.now() - 60_000).toISOString()} where id = ${orderId}`;
    const issue = await call(BUYER, 'POST', `/v9/orders/${orderId}/delivery_issues`, { reason: 'not_received' });
    expect(issue.status, JSON.stringify(issue.body)).toBe(201);
    await until('the window to close', async () => (await state(orderId)).confirmBy === null, 20_000);
    expect(await state(orderId)).toMatchObject({ order: 'accepted', shipment: 'in_transit' });
  });
});
