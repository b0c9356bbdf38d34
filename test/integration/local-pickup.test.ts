import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import updateHandler from '../../workers/shipment-update.ts';
import { apiClient, BUYER_PICKUP_BODY, ISO, SELLER_PICKUP_BODY } from '../support/api.ts';
import { BUYER, baseFixture, SELLER } from '../support/fixtures.ts';
import { deliveredThrice, runJob } from '../support/run-command.ts';
import { startTestService, type TestService } from '../support/service.ts';

const RACE_ORDERS = Array.from({ length: 50 }, (_, i) => 800 + i);

describe('local pickup: the two-party join', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService({ env: { WORKER_CONCURRENCY: '16' } });
    const fixture = baseFixture();
    for (const id of [900, 901, 902, 903, ...RACE_ORDERS]) {
      fixture.orders.push({ ...fixture.orders[3]!, id, oid: `1001-${id}` });
    }
    await t.seed(fixture);
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  async function acceptPickup(orderId: number): Promise<number> {
    const res = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    expect(res.status).toBe(200);
    expect(res.body.shipments[0].type).toBe('LocalPickup');
    return res.body.shipments[0].id;
  }

  async function liveShipments(orderId: number) {
    return t.db.database.sql!`
      select s.id, s.type, s.state, s.ship_from_name, s.pickup_time_range, s.ship_to_name, s.notes,
             s.ship_from_address_id, s.ship_from_phone_number_id, s.phone_number_id, o.state as order_state
      from shipments s join orders o on o.id = s.order_id
      where s.order_id = ${orderId} and s.replaced_by is null`;
  }

  function expectDeliveredWithBoth(rows: Awaited<ReturnType<typeof liveShipments>>) {
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      type: 'LocalPickup',
      state: 'delivered',
      ship_from_name: SELLER_PICKUP_BODY.ship_from_name,
      pickup_time_range: SELLER_PICKUP_BODY.pickup_time_range,
      ship_to_name: BUYER_PICKUP_BODY.ship_to_name,
      notes: BUYER_PICKUP_BODY.notes,
      order_state: 'completed',
    });
    expect(rows[0]!.ship_from_address_id).not.toBeNull();
    expect(rows[0]!.ship_from_phone_number_id).not.toBeNull();
    expect(rows[0]!.phone_number_id).not.toBeNull();
  }

  it('seller then buyer: each update replaces the shipment, the second delivers it', async () => {
    const first = await acceptPickup(900);
    const seller = await call(SELLER, 'PUT', `/v9/shipments/${first}`, SELLER_PICKUP_BODY);
    expect(seller.status).toBe(200);
    expect(seller.body).toEqual({
      id: expect.any(Number),
      url: `/shipments/${seller.body.id}`,
      type: 'LocalPickup',
      ship_from_name: 'Sam Seller',
      ship_from_address: { id: expect.any(Number), label: null, ...SELLER_PICKUP_BODY.ship_from_address_attributes },
      ship_from_phone_number: {
        id: expect.any(Number),
        url: expect.stringMatching(/^\/phone_numbers\/\d+$/),
        ...SELLER_PICKUP_BODY.ship_from_phone_number_attributes,
        updated_at: expect.stringMatching(ISO),
      },
      pickup_time_range: SELLER_PICKUP_BODY.pickup_time_range,
      pickup_instructions: SELLER_PICKUP_BODY.pickup_instructions,
      livemode: true,
    });
    expect(seller.body.id).not.toBe(first);

    const buyer = await call(BUYER, 'PUT', `/v9/shipments/${seller.body.id}`, BUYER_PICKUP_BODY);
    expect(buyer.status).toBe(200);
    expect(buyer.body).toEqual({
      id: expect.any(Number),
      url: `/shipments/${buyer.body.id}`,
      type: 'LocalPickup',
      ship_to_name: 'Bo Buyer',
      phone_number: { label: 'cell', country_code: '+1', number: '3125550199', extension: null },
      notes: 'Arriving late',
      livemode: true,
    });
    expectDeliveredWithBoth(await liveShipments(900));

    const again = await call(BUYER, 'PUT', `/v9/shipments/${buyer.body.id}`, BUYER_PICKUP_BODY);
    expect(again.status).toBe(422);
    expect(again.body.errors[0]).toMatchObject({ code: 'invalid_transition', message: expect.stringContaining('delivered') });
  });

  it("buyer then seller: the seller's details complete the join", async () => {
    const first = await acceptPickup(901);
    const buyer = await call(BUYER, 'PUT', `/v9/shipments/${first}`, BUYER_PICKUP_BODY);
    expect(buyer.status).toBe(200);
    const seller = await call(SELLER, 'PUT', `/v9/shipments/${buyer.body.id}`, SELLER_PICKUP_BODY);
    expect(seller.status).toBe(200);
    expectDeliveredWithBoth(await liveShipments(901));
  });

  it('a party may resubmit until the other party has supplied details', async () => {
    const first = await acceptPickup(902);
    const a = await call(SELLER, 'PUT', `/v9/shipments/${first}`, { ...SELLER_PICKUP_BODY, pickup_time_range: 'early' });
    const b = await call(SELLER, 'PUT', `/v9/shipments/${a.body.id}`, SELLER_PICKUP_BODY);
    expect(b.status).toBe(200);
    expect(b.body.pickup_time_range).toBe(SELLER_PICKUP_BODY.pickup_time_range);
    const c = await call(BUYER, 'PUT', `/v9/shipments/${b.body.id}`, BUYER_PICKUP_BODY);
    expect(c.status).toBe(200);
    expectDeliveredWithBoth(await liveShipments(902));
  });

  // The pickup's contact rows are inserted with the command's claim, before the handler knows
  // whether it will run it (workers/shipment-update.ts): whatever it does not run must leave none.
  it('contact rows only for a command that ran: a redelivery, a refusal and a stranger leave none behind', async () => {
    const first = await acceptPickup(903);
    const counts = async () =>
      (
        await t.db.database.sql!`
          select (select count(*) from addresses)::int as addresses, (select count(*) from phone_numbers)::int as phones`
      )[0];
    const envelope = (commandId: string, brokerageId: number, payload: object) => ({
      commandId,
      actor: { brokerageId, userId: null, via: 'upstream' as const },
      requestHash: commandId,
      payload: { shipment_id: first, ...payload },
    });
    const seller = envelope('c-pickup-903', 1, { operation: 'seller_pickup', ...SELLER_PICKUP_BODY });
    const before = await counts();
    await deliveredThrice(t.db.database, updateHandler, seller);
    expect(await counts()).toEqual({ addresses: before!.addresses + 1, phones: before!.phones + 1 });
    // The seller's id again, now replaced: 410. The buyer's brokerage sending the seller's details: 403.
    const stale = await runJob(
      t.db.database,
      updateHandler,
      envelope('c-pickup-903-stale', 1, { operation: 'seller_pickup', ...SELLER_PICKUP_BODY }),
    );
    const wrongRole = await runJob(
      t.db.database,
      updateHandler,
      envelope('c-pickup-903-role', 2, { operation: 'seller_pickup', ...SELLER_PICKUP_BODY }),
    );
    // Another command under a used id: a conflict, nothing run.
    const reused = await runJob(t.db.database, updateHandler, {
      ...envelope('c-pickup-903', 2, { operation: 'buyer_pickup', ...BUYER_PICKUP_BODY }),
      requestHash: 'other',
    });
    expect([stale.status, wrongRole.status, reused.status]).toEqual([410, 403, 409]);
    expect(await counts()).toEqual({ addresses: before!.addresses + 1, phones: before!.phones + 1 });
    // The buyer's details: one phone row more, and the join delivered.
    const buyer = await runJob(
      t.db.database,
      updateHandler,
      envelope('c-pickup-903-buyer', 2, { operation: 'buyer_pickup', ...BUYER_PICKUP_BODY }),
    );
    expect(buyer.status).toBe(200);
    expect(await counts()).toEqual({ addresses: before!.addresses + 1, phones: before!.phones + 2 });
    expectDeliveredWithBoth(await liveShipments(903));
  });

  it('seller and buyer at the same instant, 50 times: one delivered shipment with both details, every time', async () => {
    const firsts = await Promise.all(RACE_ORDERS.map(acceptPickup));
    const results = await Promise.all(
      firsts.map((id) =>
        Promise.all([
          call(SELLER, 'PUT', `/v9/shipments/${id}`, SELLER_PICKUP_BODY),
          call(BUYER, 'PUT', `/v9/shipments/${id}`, BUYER_PICKUP_BODY),
        ]),
      ),
    );
    for (const [seller, buyer] of results) {
      expect(seller.status).toBe(200);
      expect(buyer.status).toBe(200);
    }
    for (const orderId of RACE_ORDERS) expectDeliveredWithBoth(await liveShipments(orderId));
    const events = await t.db.database.sql!`
      select order_id, array_agg(kind order by seq) as kinds from shipment_events
      where order_id = any(${RACE_ORDERS}) group by order_id`;
    expect(events).toHaveLength(50);
    for (const e of events) expect(e.kinds).toEqual(['created', 'pickup_details', 'delivered']);
  }, 120_000);
});
