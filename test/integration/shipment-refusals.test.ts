import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, BUYER_PICKUP_BODY, SELLER_PICKUP_BODY } from '../support/api.ts';
import { BUYER, baseFixture, SELLER, STRANGER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

// Every refusal answers in the contract's error shape and changes nothing.

describe('refused commands', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  const ids = { tbd: 0, link: 0, xseats: 0, pickup: 0, delivered: 0, replacedTbd: 0 };

  async function snapshot() {
    const sql = t.db.database.sql!;
    const [s] =
      await sql`select count(*)::int as shipments, coalesce(sum(case when replaced_by is null then 1 else 0 end), 0)::int as live from shipments`;
    const [e] = await sql`select count(*)::int as events from shipment_events`;
    const o = await sql`select id, state from orders order by id`;
    return { ...s, ...e, orders: o.map((r) => `${r.id}:${r.state}`) };
  }

  beforeAll(async () => {
    t = await startTestService();
    const fixture = baseFixture();
    for (const [id, delivery] of [
      [710, 'tbd'],
      [711, 'tbd'],
      [712, 'flash'],
      [713, 'local_pickup'],
      [714, 'flash'],
      [715, 'tbd'],
    ] as const) {
      fixture.orders.push({ ...fixture.orders[0]!, id, oid: `1001-${id}`, delivery });
    }
    await t.seed(fixture);
    call = apiClient(t.url);
    const accept = async (id: number) => (await call(SELLER, 'POST', `/v9/orders/${id}/accept`, { reviewer_id: 100 })).body.shipments[0].id;
    ids.tbd = await accept(710);
    const tbd2 = await accept(711);
    ids.link = (await call(SELLER, 'PUT', `/v9/shipments/${tbd2}`, { mobile_transfer_type: 'XMobileLink' })).body.id;
    ids.xseats = await accept(712);
    ids.pickup = await accept(713);
    ids.delivered = await accept(714);
    expect((await call(SELLER, 'PUT', `/v9/shipments/${ids.delivered}/complete`)).status).toBe(200);
    ids.replacedTbd = await accept(715);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const cases: Array<{ name: string; run: () => ReturnType<typeof call>; status: number; code: string; message?: RegExp }> = [
    {
      name: 'complete a TBD shipment',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.tbd}/complete`),
      status: 422,
      code: 'invalid_transition',
      message: /TBD \(pending\)/,
    },
    {
      name: 'complete a LocalPickup shipment',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.pickup}/complete`),
      status: 422,
      code: 'invalid_transition',
      message: /LocalPickup/,
    },
    {
      name: 'complete a delivered shipment',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.delivered}/complete`),
      status: 422,
      code: 'invalid_transition',
      message: /delivered/,
    },
    {
      name: 'update a delivered shipment',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.delivered}`, { mobile_transfer_type: 'XMobile' }),
      status: 422,
      code: 'invalid_transition',
      message: /delivered/,
    },
    {
      name: 'complete XMobileLink without a link',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.link}/complete`, {}),
      status: 400,
      code: 'invalid_params',
      message: /x_mobile_link/,
    },
    {
      name: 'complete XSeats with a link',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.xseats}/complete`, { x_mobile_link: 'https://x.test/1' }),
      status: 400,
      code: 'invalid_params',
      message: /x_mobile_link/,
    },
    {
      name: 'complete XSeats with a transfer_source no platform has',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.xseats}/complete`, { transfer_source: 'myspace' }),
      status: 400,
      code: 'invalid_params',
      message: /transfer_source: must be one of AXS, TM, SG/,
    },
    {
      name: 'complete with a link that is not a URL',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.link}/complete`, { x_mobile_link: 'ftp://nope' }),
      status: 400,
      code: 'invalid_params',
      message: /x_mobile_link/,
    },
    {
      name: 'seller pickup details on a TBD shipment',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.tbd}`, SELLER_PICKUP_BODY),
      status: 422,
      code: 'invalid_transition',
      message: /TBD/,
    },
    {
      name: 'leave LocalPickup for XMobileLink',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.pickup}`, { mobile_transfer_type: 'XMobileLink' }),
      status: 422,
      code: 'invalid_transition',
      message: /LocalPickup/,
    },
    {
      name: 'accept an accepted order',
      run: () => call(SELLER, 'POST', '/v9/orders/710/accept', { reviewer_id: 100 }),
      status: 422,
      code: 'invalid_transition',
      message: /order is accepted/,
    },
    {
      name: 'accept a completed order',
      run: () => call(SELLER, 'POST', '/v9/orders/714/accept', { reviewer_id: 100 }),
      status: 422,
      code: 'invalid_transition',
      message: /order is completed/,
    },
    {
      name: 'buyer accepts an order',
      run: () => call(BUYER, 'POST', '/v9/orders/700/accept', { reviewer_id: 200 }),
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'buyer changes the delivery method',
      run: () => call(BUYER, 'PUT', `/v9/shipments/${ids.tbd}`, { mobile_transfer_type: 'XMobile' }),
      status: 403,
      code: 'forbidden',
    },
    { name: 'buyer completes', run: () => call(BUYER, 'PUT', `/v9/shipments/${ids.xseats}/complete`), status: 403, code: 'forbidden' },
    {
      name: 'buyer sends seller pickup details',
      run: () => call(BUYER, 'PUT', `/v9/shipments/${ids.pickup}`, SELLER_PICKUP_BODY),
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'seller sends buyer pickup details',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.pickup}`, BUYER_PICKUP_BODY),
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'a stranger accepts',
      run: () => call(STRANGER, 'POST', '/v9/orders/700/accept', { reviewer_id: 300 }),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'a stranger updates',
      run: () => call(STRANGER, 'PUT', `/v9/shipments/${ids.tbd}`, { mobile_transfer_type: 'XMobile' }),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'a stranger completes',
      run: () => call(STRANGER, 'PUT', `/v9/shipments/${ids.xseats}/complete`),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'unknown order',
      run: () => call(SELLER, 'POST', '/v9/orders/999999/accept', { reviewer_id: 100 }),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'unknown shipment',
      run: () => call(SELLER, 'PUT', '/v9/shipments/999999', { mobile_transfer_type: 'XMobile' }),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'reviewer of another brokerage',
      run: () => call(SELLER, 'POST', '/v9/orders/700/accept', { reviewer_id: 200 }),
      status: 400,
      code: 'invalid_params',
      message: /reviewer_id/,
    },
    {
      // No foreign key on orders.reviewer_id (D-142): the accept's own statement refuses it.
      name: 'reviewer that is no user',
      run: () => call(SELLER, 'POST', '/v9/orders/700/accept', { reviewer_id: 999_999 }),
      status: 400,
      code: 'invalid_params',
      message: /reviewer_id/,
    },
    {
      name: 'seats not matching the quantity',
      run: () => call(SELLER, 'POST', '/v9/orders/700/accept', { reviewer_id: 100, seats: [1] }),
      status: 400,
      code: 'invalid_params',
      message: /seats/,
    },
    {
      name: 'repeated seats',
      run: () => call(SELLER, 'POST', '/v9/orders/700/accept', { reviewer_id: 100, seats: [1, 1] }),
      status: 400,
      code: 'invalid_params',
      message: /seats/,
    },
    {
      name: 'missing reviewer_id',
      run: () => call(SELLER, 'POST', '/v9/orders/700/accept', {}),
      status: 400,
      code: 'invalid_params',
      message: /reviewer_id/,
    },
    {
      name: 'mistyped reviewer_id',
      run: () => call(SELLER, 'POST', '/v9/orders/700/accept', { reviewer_id: '100' }),
      status: 400,
      code: 'invalid_params',
      message: /reviewer_id/,
    },
    {
      name: 'extra field',
      run: () => call(SELLER, 'POST', '/v9/orders/700/accept', { reviewer_id: 100, rush: true }),
      status: 400,
      code: 'invalid_params',
      message: /rush/,
    },
    {
      name: 'unknown transfer type',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.tbd}`, { mobile_transfer_type: 'Carrier' }),
      status: 400,
      code: 'invalid_params',
      message: /mobile_transfer_type/,
    },
    {
      name: 'a body naming its own shipment_id',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.tbd}`, { mobile_transfer_type: 'XMobile', shipment_id: 99 }),
      status: 400,
      code: 'invalid_params',
      message: /shipment_id: unknown field/,
    },
    {
      name: 'a body naming an operation',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.tbd}`, { mobile_transfer_type: 'XMobile', operation: 'buyer_pickup' }),
      status: 400,
      code: 'invalid_params',
      message: /operation: unknown field/,
    },
    {
      name: 'mixed operations',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.pickup}`, { mobile_transfer_type: 'XMobile', ship_from_name: 'x' }),
      status: 400,
      code: 'invalid_params',
      message: /mixes/,
    },
    { name: 'empty update body', run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.tbd}`, {}), status: 400, code: 'invalid_params' },
    {
      name: 'bad phone country code',
      run: () =>
        call(SELLER, 'PUT', `/v9/shipments/${ids.pickup}`, {
          ...SELLER_PICKUP_BODY,
          ship_from_phone_number_attributes: { country_code: '1', number: '5550100' },
        }),
      status: 400,
      code: 'invalid_params',
      message: /ship_from_phone_number_attributes\.country_code/,
    },
    {
      name: 'bad address country',
      run: () =>
        call(SELLER, 'PUT', `/v9/shipments/${ids.pickup}`, {
          ...SELLER_PICKUP_BODY,
          ship_from_address_attributes: { ...SELLER_PICKUP_BODY.ship_from_address_attributes, country_code: 'XX' },
        }),
      status: 400,
      code: 'invalid_params',
      message: /country_code/,
    },
    {
      name: 'missing pickup_time_range',
      run: () => {
        const { pickup_time_range: _p, ...b } = SELLER_PICKUP_BODY;
        return call(SELLER, 'PUT', `/v9/shipments/${ids.pickup}`, b);
      },
      status: 400,
      code: 'invalid_params',
      message: /pickup_time_range/,
    },
    {
      name: 'bad transfer_source',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.tbd}`, { mobile_transfer_type: 'XMobile', transfer_source: 'has space' }),
      status: 400,
      code: 'invalid_params',
      message: /transfer_source/,
    },
    {
      name: 'NUL in a string (Postgres cannot store it)',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.pickup}`, JSON.stringify({ ...SELLER_PICKUP_BODY, ship_from_name: 'a\u0000b' })),
      status: 400,
      code: 'invalid_params',
      message: /ship_from_name: must not contain NUL/,
    },
    {
      name: 'unpaired surrogate in a string',
      run: () =>
        call(
          SELLER,
          'PUT',
          `/v9/shipments/${ids.pickup}`,
          '{"ship_to_name":"\\ud800","phone_number_attributes":{"country_code":"+1","number":"5550100"}}',
        ),
      status: 400,
      code: 'invalid_params',
      message: /ship_to_name/,
    },
    {
      name: 'a body nested thousands deep',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.tbd}`, `{"mobile_transfer_type":${'['.repeat(3000)}${']'.repeat(3000)}}`),
      status: 400,
      code: 'invalid_params',
      message: /nested/,
    },
    {
      name: 'malformed JSON',
      run: () => call(SELLER, 'PUT', `/v9/shipments/${ids.tbd}`, '{"mobile_transfer_type":'),
      status: 400,
      code: 'invalid_params',
    },
    {
      name: 'non-numeric id',
      run: () => call(SELLER, 'PUT', '/v9/shipments/abc', { mobile_transfer_type: 'XMobile' }),
      status: 400,
      code: 'invalid_params',
      message: /id/,
    },
  ];

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const before = await snapshot();
    const res = await c.run();
    expect(res.status).toBe(c.status);
    expect(res.body).toEqual({ errors: [expect.objectContaining({ code: c.code, message: expect.any(String) })] });
    if (c.message) expect(res.body.errors[0].message).toMatch(c.message);
    expect(await snapshot()).toEqual(before);
  });

  it('an old id after an update answers 410 with the live id, for update and complete alike', async () => {
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${ids.replacedTbd}`, { mobile_transfer_type: 'XMobile' });
    expect(updated.status).toBe(200);
    const again = await call(SELLER, 'PUT', `/v9/shipments/${updated.body.id}`, { mobile_transfer_type: 'XSeats' });
    expect(again.status).toBe(200);
    for (const res of [
      await call(SELLER, 'PUT', `/v9/shipments/${ids.replacedTbd}`, { mobile_transfer_type: 'XMobile' }),
      await call(SELLER, 'PUT', `/v9/shipments/${ids.replacedTbd}/complete`),
      await call(SELLER, 'PUT', `/v9/shipments/${updated.body.id}/complete`),
    ]) {
      expect(res.status).toBe(410);
      expect(res.body).toEqual({
        errors: [{ code: 'shipment_replaced', message: expect.stringContaining(String(again.body.id)), replaced_by: again.body.id }],
      });
    }
    // A stranger learns nothing, not even that the id was replaced.
    expect((await call(STRANGER, 'PUT', `/v9/shipments/${ids.replacedTbd}/complete`)).status).toBe(404);
  });
});
