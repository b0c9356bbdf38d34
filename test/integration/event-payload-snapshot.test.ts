import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { baseFixture, BUYER, ORDERS, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver, until } from '../support/webhook-receiver.ts';

// An event's data is what the event produced. Completion changes a shipment in place (it keeps
// its id), so an update event delivered or read after the completion must still show the
// shipment as the update left it, pending, while the completion's own event shows it delivered.
// The read endpoints are where the current state is.

type EventObject = { type: string; order_id: number; data: { shipment: Record<string, unknown> } };

describe('event payloads after the shipment changed in place', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', RELAY_INTERVAL_MS: '50' } });
    await t.seed(baseFixture());
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  /** Accept, switch to XMobileLink, complete: the link shipment is completed in place. */
  async function linkFlow(order: number) {
    const tbd = (await call(SELLER, 'POST', `/v9/orders/${order}/accept`, { reviewer_id: 100 })).body.shipments[0].id as number;
    const link = (await call(SELLER, 'PUT', `/v9/shipments/${tbd}`, { mobile_transfer_type: 'XMobileLink' })).body.id as number;
    const done = await call(SELLER, 'PUT', `/v9/shipments/${link}/complete`, { x_mobile_link: 'https://x.test/c' });
    expect(done.body).toMatchObject({ id: link, state: 'delivered' });
    // The read endpoint shows the shipment as it is now.
    expect((await call(BUYER, 'GET', `/v9/shipments/${link}`)).body).toMatchObject({
      state: 'delivered',
      x_mobile_link: 'https://x.test/c',
    });
    return { tbd, link };
  }

  function expectAsProduced(events: EventObject[], { tbd, link }: { tbd: number; link: number }) {
    const shipmentOf = (type: string) => events.find((e) => e.type === type)!.data.shipment;
    expect(events.map((e) => e.type)).toEqual(['shipment.created', 'shipment.updated', 'shipment.completed']);
    expect(shipmentOf('shipment.created')).toMatchObject({ id: tbd, type: 'TBD', state: 'pending' });
    expect(shipmentOf('shipment.updated')).toMatchObject({ id: link, type: 'XMobileLink', state: 'pending' });
    expect(shipmentOf('shipment.updated')).not.toHaveProperty('x_mobile_link');
    expect(shipmentOf('shipment.completed')).toMatchObject({
      id: link,
      type: 'XMobileLink',
      state: 'delivered',
      x_mobile_link: 'https://x.test/c',
    });
  }

  it('an update read from the feed after the completion shows the pending shipment it produced', async () => {
    const ids = await linkFlow(ORDERS.tbd);
    const ofOrder = async (cred: typeof SELLER) =>
      ((await call(cred, 'GET', '/v9/events?limit=1000')).body.events as EventObject[]).filter((e) => e.order_id === ORDERS.tbd);
    await until('the three events in the feed', async () => (await ofOrder(BUYER)).length === 3);
    for (const cred of [BUYER, SELLER]) expectAsProduced(await ofOrder(cred), ids);
  });

  it('an update delivered by webhook after the completion shows the pending shipment it produced', async () => {
    const receiver = await startReceiver();
    try {
      // Disabled: the events are owed, and go out only once the whole flow is done.
      const hook = await call(BUYER, 'POST', '/v9/webhook_endpoints', { url: receiver.url, enabled: false });
      expect(hook.status).toBe(201);
      const ids = await linkFlow(ORDERS.tbd2);
      expect((await call(BUYER, 'PATCH', `/v9/webhook_endpoints/${hook.body.id}`, { enabled: true })).status).toBe(200);
      await until('the three deliveries', async () => receiver.acknowledged.length >= 3);
      expectAsProduced(
        receiver.acknowledged.map((r) => r.body as EventObject),
        ids,
      );
    } finally {
      await receiver.close();
    }
  });
});
