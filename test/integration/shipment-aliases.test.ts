import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, ISO } from '../support/api.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { b64, makePdf } from '../support/test-files.ts';

// docs/API.md §Shipments: the legacy names of existing clients (TMMobile, TMMobileLink, tm_mobile_link) are
// accepted and answered with the new ones; Eticket; transfer_source kept from update to complete.

// One fresh TBD order per test, so no test depends on another's leftovers.
const ORDER = { linkAlias: 750, mobileAlias: 751, eticket: 752, source: 753, bothLinks: 754 } as const;

describe('shipment aliases, Eticket and transfer_source', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService();
    const fixture = baseFixture(Object.values(ORDER));
    await t.seed(fixture);
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const sql = () => t.db.database.sql!;
  const shipmentRow = async (id: number) => {
    const [row] = await sql()`select type, state, transfer_source, x_mobile_link, replaced_by from shipments where id = ${id}`;
    return row;
  };
  /** Accepts the order and answers the id of its TBD shipment. */
  async function tbdShipment(orderId: number): Promise<number> {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    expect(accepted.body.shipments).toEqual([{ id: expect.any(Number), url: expect.any(String), type: 'TBD' }]);
    return accepted.body.shipments[0].id;
  }
  async function update(id: number, body: object) {
    const res = await call(SELLER, 'PUT', `/v9/shipments/${id}`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  }
  const orderState = async (orderId: number) => (await sql()`select state from orders where id = ${orderId}`)[0]!.state;

  it('TMMobileLink is answered as XMobileLink, and completes with the legacy tm_mobile_link', async () => {
    const updated = await update(await tbdShipment(ORDER.linkAlias), { mobile_transfer_type: 'TMMobileLink' });
    expect(updated).toEqual({
      id: expect.any(Number),
      url: `/shipments/${updated.id}`,
      type: 'XMobileLink',
      state: 'pending',
      livemode: true,
    });
    expect(await shipmentRow(updated.id)).toMatchObject({ type: 'XMobileLink', state: 'pending' });

    const completed = await call(SELLER, 'PUT', `/v9/shipments/${updated.id}/complete`, {
      tm_mobile_link: 'https://claim.example.test/a,https://claim.example.test/b',
    });
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({
      id: updated.id,
      url: `/shipments/${updated.id}`,
      type: 'XMobileLink',
      state: 'delivered',
      x_mobile_link: 'https://claim.example.test/a,https://claim.example.test/b',
      livemode: true,
    });
    expect(await shipmentRow(updated.id)).toMatchObject({
      state: 'delivered',
      x_mobile_link: 'https://claim.example.test/a,https://claim.example.test/b',
    });
    expect(await orderState(ORDER.linkAlias)).toBe('completed');
  });

  it('TMMobile is answered as XMobile and carries ship_to_name and email_address', async () => {
    const updated = await update(await tbdShipment(ORDER.mobileAlias), { mobile_transfer_type: 'TMMobile' });
    expect(updated).toEqual({
      id: expect.any(Number),
      url: `/shipments/${updated.id}`,
      type: 'XMobile',
      state: 'pending',
      ship_to_name: 'Bo Buyer',
      email_address: { id: expect.any(Number), url: null, address: 'bo@example.test', label: null, updated_at: expect.stringMatching(ISO) },
      livemode: true,
    });
    expect(await shipmentRow(updated.id)).toMatchObject({ type: 'XMobile', state: 'pending' });
  });

  it('Eticket: the update answers exactly id, url, type, state and livemode; complete with no body delivers it once e-tickets are uploaded', async () => {
    const updated = await update(await tbdShipment(ORDER.eticket), { mobile_transfer_type: 'Eticket' });
    expect(updated).toEqual({ id: expect.any(Number), url: `/shipments/${updated.id}`, type: 'Eticket', state: 'pending', livemode: true });

    expect((await call(SELLER, 'PUT', `/v9/shipments/${updated.id}/complete`)).status).toBe(422);
    const uploaded = await call(SELLER, 'POST', `/v9/shipments/${updated.id}/etickets`, { etickets: [{ eticket: b64(await makePdf(2)) }] });
    expect(uploaded.status).toBe(200);
    const completed = await call(SELLER, 'PUT', `/v9/shipments/${updated.id}/complete`);
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({
      id: updated.id,
      url: `/shipments/${updated.id}`,
      type: 'Eticket',
      state: 'delivered',
      livemode: true,
    });
    expect(await shipmentRow(updated.id)).toMatchObject({ type: 'Eticket', state: 'delivered', x_mobile_link: null });
    expect(await orderState(ORDER.eticket)).toBe('completed');
  });

  it('transfer_source given on update is stored, carried to the replacement, and kept on the completed row', async () => {
    const first = await update(await tbdShipment(ORDER.source), { mobile_transfer_type: 'XMobile', transfer_source: 'tm-resale_2' });
    expect(await shipmentRow(first.id)).toMatchObject({ type: 'XMobile', transfer_source: 'tm-resale_2', replaced_by: null });

    // Not given again: the replacement keeps what was known.
    const second = await update(first.id, { mobile_transfer_type: 'XMobileLink' });
    expect(await shipmentRow(first.id)).toMatchObject({ replaced_by: second.id });
    expect(await shipmentRow(second.id)).toMatchObject({ type: 'XMobileLink', transfer_source: 'tm-resale_2', replaced_by: null });

    const completed = await call(SELLER, 'PUT', `/v9/shipments/${second.id}/complete`, { x_mobile_link: 'https://claim.example.test/src' });
    expect(completed.status).toBe(200);
    expect(completed.body.id).toBe(second.id);
    expect(await shipmentRow(second.id)).toMatchObject({ state: 'delivered', transfer_source: 'tm-resale_2', replaced_by: null });
  });

  it('refuses x_mobile_link and tm_mobile_link together with 400 naming tm_mobile_link, changing nothing', async () => {
    const updated = await update(await tbdShipment(ORDER.bothLinks), { mobile_transfer_type: 'XMobileLink' });
    const refused = await call(SELLER, 'PUT', `/v9/shipments/${updated.id}/complete`, {
      x_mobile_link: 'https://claim.example.test/x',
      tm_mobile_link: 'https://claim.example.test/tm',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toHaveLength(1);
    expect(refused.body.errors[0]).toMatchObject({
      code: 'invalid_params',
      field: 'tm_mobile_link',
      message: expect.stringContaining('tm_mobile_link'),
    });
    expect(await shipmentRow(updated.id)).toMatchObject({ state: 'pending', x_mobile_link: null });
    expect(await orderState(ORDER.bothLinks)).toBe('accepted');
  });
});
