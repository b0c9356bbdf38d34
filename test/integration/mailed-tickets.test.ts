import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FulfilmentClient } from '../../src/index.ts';
import { fireTimer } from '../../src/timers/fire-timer.ts';
import { apiClient } from '../support/api.ts';
import { easypostSignature, recordedText, startEasyPostStub } from '../support/easypost-stub.ts';
import { baseFixture, BUYER, SELLER, STRANGER, BUYER_ADDRESS } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { startPartyEndpoints } from '../support/party-webhooks.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { b64, makePdf, makePng } from '../support/test-files.ts';
import { until } from '../support/webhook-receiver.ts';
import { runCli } from '../support/cli.ts';
import { TEST_REDIS_URL } from '../support/env.ts';

// Mailed tickets end to end against the real service (Postgres, Redis, BullMQ workers) and the
// official EasyPost client pointed at a local stub answering EasyPost's recorded shapes
// (test/easypost/): the label bought or uploaded, the buyer downloads it, complete means
// shipped, and the delivery scan (a signed webhook, or the seller's event) completes the order.

const ORDER_IDS = Array.from({ length: 30 }, (_, i) => 1400 + i);
const SECRET = 'whsec-mailed-tickets-test';
const UPS = '1Z5R89390357567127';
const USPS = '9400111202555842332669';
const FEDEX = '986578788855';

const ADDRESS = BUYER_ADDRESS;

describe('mailed tickets', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let stub: Awaited<ReturnType<typeof startEasyPostStub>>;
  let endpoints: Awaited<ReturnType<typeof startPartyEndpoints>>;
  let nextOrder = 0;

  beforeAll(async () => {
    stub = await startEasyPostStub();
    t = await startTestService({
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        RELAY_INTERVAL_MS: '50',
        WEBHOOK_SWEEP_EVERY_MS: '300',
        EASYPOST_API_KEY: 'EZTKtest0000000000000000000000',
        EASYPOST_WEBHOOK_SECRET: SECRET,
        EASYPOST_BASE_URL: stub.baseUrl,
        EASYPOST_TIMEOUT_MS: '1000',
        EASYPOST_FROM_ADDRESS_ID: 'adr_from0000000000000000000000000001',
      },
    });
    await t.seed(baseFixture(ORDER_IDS));
    call = apiClient(t.url);
    endpoints = await startPartyEndpoints(call);
  }, 60_000);
  afterAll(async () => {
    await endpoints?.close();
    await t?.stop();
    await stub?.close();
  });

  const sql = () => t.db.database.sql!;

  /** A new order accepted; answers its order id and TBD shipment id. */
  async function accepted(): Promise<{ orderId: number; id: number }> {
    const orderId = ORDER_IDS[nextOrder++]!;
    const res = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    expect(res.status).toBe(200);
    return { orderId, id: res.body.shipments[0].id };
  }

  async function mailed(type: string, extra: object = {}): Promise<{ orderId: number; id: number; body: any }> {
    const { orderId, id } = await accepted();
    const res = await call(SELLER, 'PUT', `/v9/shipments/${id}`, { type, ship_to_address_attributes: ADDRESS, ...extra });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { orderId, id: res.body.id, body: res.body };
  }

  const webhook = (body: string, signature: string | null = easypostSignature(SECRET, body)) =>
    fetch(`${t.url}/carriers/easypost/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(signature ? { 'x-hmac-signature': signature } : {}) },
      body,
    });

  const state = async (orderId: number) => {
    const [row] = await sql()`select o.state as "order", s.state as shipment, s.tracking_number as tracking,
      (select count(*) from tracking_events te where te.order_id = o.id)::int as scans, o.event_seq as seq
      from orders o join shipments s on s.order_id = o.id and s.replaced_by is null where o.id = ${orderId}`;
    return row as unknown as { order: string; shipment: string; tracking: string | null; scans: number; seq: number };
  };

  async function download(cred: typeof SELLER, id: number) {
    const res = await signedFetch(t.url, cred, 'GET', `/v9/shipments/${id}/airbill`);
    return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
  }

  /** The label bought by a test is matched by its tracking code: one live shipment holds it at a time. */
  async function retireTracking(id: number) {
    await sql()`delete from tracking_claims where order_id = (select order_id from shipments where id = ${id})`;
    await sql()`update shipments set tracking_number = null, carrier_tracker_id = null where id = ${id}`;
  }

  /**
   * The recorded times (2026-11-20 to 22) moved to just after `base`, in their order, a day to 86 s:
   * a scan is never before its shipment existed nor more than 10 minutes ahead (D-152).
   */
  const shifted = (base: number) => (text: string) =>
    text.replace(/2026-11-2\dT\d\d:\d\d:\d\dZ/g, (m) =>
      new Date(base - 30_000 + (Date.parse(m) - Date.parse('2026-11-20T00:00:00Z')) / 1000).toISOString(),
    );

  it('UPS: address → label bought through EasyPost → buyer downloads → complete → in_transit → signed delivered scan completes the order; both parties see every event', async () => {
    const { orderId, id, body } = await mailed('UPS');
    expect(body).toEqual({
      id,
      url: `/shipments/${id}`,
      type: 'UPS',
      state: 'pending',
      service_type: null,
      ship_to_name: 'Bo Buyer',
      ship_to_address: { id: expect.any(Number), label: null, ...ADDRESS },
      tracking_number: null,
      estimated_delivery_at: null,
      livemode: true,
    });

    const early = await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {});
    expect(early.status).toBe(422);
    expect(early.body.errors[0].message).toContain(`PUT /v9/shipments/${id}/tracking`);

    const bought = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, {});
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
    expect(bought.body).toMatchObject({
      id,
      type: 'UPS',
      state: 'pending',
      tracking_number: UPS,
      service_type: 'NextDayAir',
      airbill: { url: `/v9/shipments/${id}/airbill`, source: 'purchased', uploaded_by: 'seller', pages: 1 },
      purchase: { provider: 'easypost', service: 'NextDayAir', rate: '48.10', reason: 'the order has no deliver_by: the fastest' },
    });
    expect(stub.calls.find((c) => c.path.endsWith('/buy'))!.body).toEqual({ rate: { id: 'rate_nextday000000000000000000000001' } });
    const create = stub.calls.find((c) => c.path === '/v2/shipments')!;
    expect(create.body).toMatchObject({
      shipment: {
        to_address: { name: 'Bo Buyer', street1: '1 Main St', street2: 'Apt 4', city: 'Chicago', state: 'IL', zip: '60601', country: 'US' },
        from_address: { id: 'adr_from0000000000000000000000000001' },
        reference: `fulfil-shipment-${id}`,
      },
    });
    expect(create.auth).toMatch(/^Basic /);

    // Bought twice: the first label answers, EasyPost is not asked again.
    const buys = stub.calls.filter((c) => c.path.endsWith('/buy')).length;
    const again = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, {});
    expect(again.status).toBe(200);
    expect(again.body.airbill.sha256).toBe(bought.body.airbill.sha256);
    expect(again.body.tracking_number).toBe(UPS);
    expect(stub.calls.filter((c) => c.path.endsWith('/buy')).length).toBe(buys);

    for (const cred of [BUYER, SELLER]) {
      const got = await download(cred, id);
      expect(got.status).toBe(200);
      expect(got.type).toBe('application/pdf');
      expect(got.bytes.equals(stub.label)).toBe(true);
    }
    expect((await download(STRANGER, id)).status).toBe(404);

    const shipped = await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {});
    expect(shipped.status).toBe(200);
    expect(shipped.body).toMatchObject({ id, state: 'in_transit', tracking_number: UPS });
    const now = shifted(Date.now());
    expect(await state(orderId)).toMatchObject({ order: 'accepted', shipment: 'in_transit' });

    // The seller's word does not deliver a shipment the carrier tracks.
    const claim = await call(SELLER, 'POST', `/v9/shipments/${id}/tracking_events`, {
      status: 'delivered',
      occurred_at: now('2026-11-22T09:00:00Z'),
    });
    expect(claim.status).toBe(200);
    expect(claim.body.tracking_event).toMatchObject({ source: 'seller', seller_claim: true, status: 'delivered' });
    expect(claim.body.state).toBe('in_transit');
    expect(await state(orderId)).toMatchObject({ order: 'accepted', shipment: 'in_transit' });

    const delivered = now(recordedText('tracker-updated-delivered.json'));
    const res = await webhook(delivered);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ taken: true, shipment_id: id, recorded: 3 });
    expect(await state(orderId)).toMatchObject({ order: 'completed', shipment: 'delivered' });

    const list = await call(BUYER, 'GET', `/v9/shipments/${id}/tracking_events`);
    expect(list.status).toBe(200);
    expect(list.body.tracking_url).toContain(UPS);
    expect(list.body.tracking_events.map((e: any) => [e.source, e.status])).toEqual([
      ['carrier', 'in_transit'],
      ['carrier', 'out_for_delivery'],
      ['seller', 'delivered'],
      ['carrier', 'delivered'],
    ]);
    expect(list.body.tracking_events[3]).toMatchObject({ location: 'CHICAGO, IL, 60601, US', description: 'Delivered, front desk' });

    const types = [
      'shipment.created',
      'shipment.updated',
      'shipment.airbill_created',
      'shipment.in_transit',
      'shipment.in_transit',
      'shipment.out_for_delivery',
      'shipment.delivered',
    ];
    for (const p of endpoints.parties) {
      const history = (await call(p.credential, 'GET', `/v9/orders/${orderId}/events`)).body.events;
      expect(
        history.map((e: any) => `shipment.${e.kind}`),
        p.party,
      ).toEqual(types);
      expect(history.at(-1)).toMatchObject({
        to_state: 'delivered',
        actor: { type: 'system', reason: 'carrier_scan' },
        details: { scan: { status: 'delivered', source: 'carrier' } },
      });
      await until(`${p.party}: the delivery's webhook`, () =>
        p.receiver.acknowledged.some((r) => r.body.order_id === orderId && r.body.type === 'shipment.delivered'),
      );
      expect(p.receiver.acknowledged.filter((r) => r.body.order_id === orderId).map((r) => r.body.type)).toEqual(types);
      const feed = (await call(p.credential, 'GET', '/v9/events?limit=1000')).body.events;
      expect(feed.filter((e: any) => e.order_id === orderId).map((e: any) => e.type)).toEqual(types);
    }

    // Replayed, and reordered (an in_transit after delivered): recorded once, nothing moves back.
    const before = await state(orderId);
    expect((await webhook(delivered)).status).toBe(200);
    const late = await webhook(now(recordedText('tracker-updated-in-transit.json')));
    expect(late.status).toBe(200);
    expect(await state(orderId)).toEqual(before);

    const env = {
      DATABASE_URL: t.db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: t.prefix,
      LOG_LEVEL: 'silent',
      FULFIL_SECRET_KEY: t.config.FULFIL_SECRET_KEY!,
    };
    const cli = await runCli(['shipments', 'tracking', String(id)], env);
    expect(cli.code, cli.text).toBe(0);
    expect(cli.lines[0]).toBe(`shipment ${id}: UPS delivered (NextDayAir)`);
    expect(cli.lines[1]).toMatch(new RegExp(`^tracking number: ${UPS}  https://\\S+${UPS}`));
    expect(cli.lines.filter((l) => /^2026-/.test(l)).map((l) => l.split(/\s+/).slice(1, 3).join(' '))).toEqual([
      'in_transit carrier',
      'out_for_delivery carrier',
      'delivered seller*',
      'delivered carrier',
    ]);
    await retireTracking(id);
  }, 90_000);

  it('seller-uploaded airbill and seller tracking events: USPS → upload → complete → events → delivered completes the order', async () => {
    const { orderId, id } = await mailed('USPS', { service_type: 'Priority' });
    const pdf = await makePdf(2, 'label');
    // EasyPost does not register the tracker: the seller's events are the only word (D-119).
    stub.setMode('error');
    const up = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, {
      airbill: b64(pdf),
      tracking_number: USPS.replace(/(\d{4})/g, '$1 ').trim(),
    }).finally(() => stub.setMode('ok'));
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body).toMatchObject({
      tracking_number: USPS,
      service_type: 'Priority',
      airbill: { source: 'uploaded', pages: 2 },
      purchase: null,
    });
    expect((await download(BUYER, id)).bytes.equals(pdf)).toBe(true);
    expect((await sql()`select carrier_tracker_id as t from shipments where id = ${id}`)[0]!.t).toBeNull();

    expect((await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {})).body.state).toBe('in_transit');
    const t0 = Date.now();
    const at = (h: number) => new Date(t0 + h * 1000).toISOString();
    const ev = (status: string, h: number, more: object = {}) =>
      call(SELLER, 'POST', `/v9/shipments/${id}/tracking_events`, { status, occurred_at: at(h), ...more });
    expect((await ev('exception', 9, { description: 'Weather delay', location: 'Denver, CO' })).body.state).toBe('exception');
    expect((await ev('in_transit', 12)).body.state).toBe('in_transit');
    const again = await ev('in_transit', 12);
    expect(again.status).toBe(200);
    expect(again.body.recorded).toBe(false);
    expect((await ev('out_for_delivery', 14)).body.state).toBe('in_transit');
    const search = async (st: string) =>
      (await (await fetch(`${t.url}/ops/orders?shipment_state=${st}`)).text()).includes(`/ops/orders/${orderId}"`);
    expect(await search('in_transit')).toBe(true);
    expect(await search('exception')).toBe(false);
    const done = await ev('delivered', 16);
    // It counts (no tracker follows this envelope), and it is still the seller's word, not the carrier's scan.
    expect(done.body).toMatchObject({ state: 'delivered', tracking_event: { source: 'seller', seller_claim: true } });
    expect(await state(orderId)).toMatchObject({ order: 'completed', shipment: 'delivered', scans: 4 });
    const kinds = (await call(BUYER, 'GET', `/v9/orders/${orderId}/events`)).body.events.map((e: any) => e.kind);
    expect(kinds).toEqual([
      'created',
      'updated',
      'airbill_created',
      'in_transit',
      'delivery_exception',
      'in_transit',
      'out_for_delivery',
      'delivered',
    ]);
    expect((await ev('in_transit', 18)).body.state).toBe('delivered');
    expect((await state(orderId)).order).toBe('completed');
    // The scans are evidence of delivery, should the buyer say the tickets never came.
    const evidence = await call(BUYER, 'GET', `/v9/orders/${orderId}/delivery_evidence`);
    expect(evidence.status).toBe(200);
    const scans = evidence.body.timeline.filter((e: any) => e.what === 'tracking_scan');
    expect(scans.map((e: any) => [e.status, e.by])).toEqual([
      ['exception', 'seller'],
      ['in_transit', 'seller'],
      ['out_for_delivery', 'seller'],
      ['delivered', 'seller'],
      ['in_transit', 'seller'],
    ]);
    expect(scans[0]).toMatchObject({ at: at(9), location: 'Denver, CO', description: 'Weather delay' });
    await retireTracking(id);
  }, 30_000);

  it('ProvidedAirbill: the buyer uploads the label; the seller may not, nor buy one', async () => {
    const { orderId, id } = await mailed('ProvidedAirbill');
    const pdf = await makePdf(1, 'buyer label');
    expect((await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, { airbill: b64(pdf), tracking_number: FEDEX })).status).toBe(403);
    expect((await call(BUYER, 'POST', `/v9/shipments/${id}/airbill`, {})).body.errors[0]).toMatchObject({
      code: 'invalid_params',
      field: 'airbill',
    });
    stub.setMode('error');
    const up = await call(BUYER, 'POST', `/v9/shipments/${id}/airbill`, { airbill: b64(pdf), tracking_number: FEDEX }).finally(() =>
      stub.setMode('ok'),
    );
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body).toMatchObject({ type: 'ProvidedAirbill', tracking_number: FEDEX, airbill: { uploaded_by: 'buyer' } });
    expect((await download(SELLER, id)).bytes.equals(pdf)).toBe(true);
    expect((await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {})).body.state).toBe('in_transit');
    const done = await call(SELLER, 'POST', `/v9/shipments/${id}/tracking_events`, {
      status: 'delivered',
      occurred_at: new Date().toISOString().replace('Z', '+00:00'),
    });
    expect(done.body.state).toBe('delivered');
    expect(await state(orderId)).toMatchObject({ order: 'completed', shipment: 'delivered' });
    await retireTracking(id);
  });

  it('refuses a bad address, a PO box for FedEx/UPS, and changes nothing', async () => {
    const { orderId, id } = await accepted();
    const before = await state(orderId);
    const { postal_code: _p, ...noPostal } = ADDRESS;
    const missing = await call(SELLER, 'PUT', `/v9/shipments/${id}`, { type: 'UPS', ship_to_address_attributes: noPostal });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].field).toContain('postal_code');
    const noAddress = await call(SELLER, 'PUT', `/v9/shipments/${id}`, { type: 'FedEx' });
    expect(noAddress.status).toBe(400);
    const badZip = await call(SELLER, 'PUT', `/v9/shipments/${id}`, {
      type: 'USPS',
      ship_to_address_attributes: { ...ADDRESS, postal_code: 'ABC' },
    });
    expect(badZip.status).toBe(400);
    expect(badZip.body.errors[0].message).toMatch(/not a postal code of US/);
    const badCountry = await call(SELLER, 'PUT', `/v9/shipments/${id}`, {
      type: 'USPS',
      ship_to_address_attributes: { ...ADDRESS, country_code: 'XX' },
    });
    expect(badCountry.status).toBe(400);
    const badType = await call(SELLER, 'PUT', `/v9/shipments/${id}`, { type: 'DHL', ship_to_address_attributes: ADDRESS });
    expect(badType.status).toBe(400);
    for (const type of ['FedEx', 'UPS']) {
      const box = await call(SELLER, 'PUT', `/v9/shipments/${id}`, {
        type,
        ship_to_address_attributes: { ...ADDRESS, street_address: 'P.O. Box 123' },
      });
      expect(box.status).toBe(422);
      expect(box.body.errors[0]).toMatchObject({ code: 'address_refused', field: 'ship_to_address_attributes.street_address' });
    }
    const byBuyer = await call(BUYER, 'PUT', `/v9/shipments/${id}`, { type: 'UPS', ship_to_address_attributes: ADDRESS });
    expect(byBuyer.status).toBe(403);
    expect(await state(orderId)).toEqual(before);
    // USPS delivers to PO boxes.
    const usps = await call(SELLER, 'PUT', `/v9/shipments/${id}`, {
      type: 'USPS',
      ship_to_address_attributes: { ...ADDRESS, street_address: 'PO Box 123' },
    });
    expect(usps.status).toBe(200);
  });

  it('refuses a tracking number of another carrier or of none, and an airbill that is not a PDF; nothing changes', async () => {
    const { orderId, id } = await mailed('FedEx');
    const before = await state(orderId);
    const other = await call(SELLER, 'PUT', `/v9/shipments/${id}/tracking`, { tracking_number: UPS });
    expect(other.status).toBe(400);
    expect(other.body.errors[0]).toMatchObject({ field: 'tracking_number', detected_carrier: 'UPS' });
    expect(other.body.errors[0].message).toContain('is a UPS tracking number');
    const none = await call(SELLER, 'PUT', `/v9/shipments/${id}/tracking`, { tracking_number: 'NOT-A-NUMBER' });
    expect(none.status).toBe(400);
    expect(none.body.errors[0]).toMatchObject({ field: 'tracking_number', detected_carrier: null });
    const png = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, { airbill: b64(makePng()), tracking_number: FEDEX });
    expect(png.status).toBe(400);
    expect(png.body.errors[0].field).toBe('airbill');
    const garbage = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, { airbill: 'not base64!', tracking_number: FEDEX });
    expect(garbage.status).toBe(400);
    const wrong = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, { airbill: b64(await makePdf(1)), tracking_number: USPS });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].detected_carrier).toBe('USPS');
    expect((await call(BUYER, 'PUT', `/v9/shipments/${id}/tracking`, { tracking_number: FEDEX })).status).toBe(403);
    expect(
      (await call(SELLER, 'POST', `/v9/shipments/${id}/tracking_events`, { status: 'lost', occurred_at: '2026-11-21T00:00:00Z' })).status,
    ).toBe(400);
    expect(
      (await call(SELLER, 'POST', `/v9/shipments/${id}/tracking_events`, { status: 'in_transit', occurred_at: 'yesterday' })).status,
    ).toBe(400);
    expect(await state(orderId)).toEqual(before);
    const set = await call(SELLER, 'PUT', `/v9/shipments/${id}/tracking`, { tracking_number: FEDEX });
    expect(set.status).toBe(200);
    expect(set.body.tracking_number).toBe(FEDEX);
  });

  it('an EasyPost error or timeout while buying leaves the shipment unchanged and says what EasyPost said', async () => {
    const { orderId, id } = await mailed('UPS');
    const before = await state(orderId);
    try {
      stub.setMode('error');
      const refused = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, {});
      expect(refused.status).toBe(502);
      expect(refused.body.errors[0]).toMatchObject({ code: 'carrier_error', carrier_code: 'ADDRESS.VERIFY.FAILURE' });
      expect(refused.body.errors[0].message).toContain('Unable to verify address.');
      expect(refused.body.errors[0].message).toContain('Address not found');
      stub.setMode('hang');
      const slow = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, {});
      expect(slow.status).toBe(502);
      expect(slow.body.errors[0]).toMatchObject({ code: 'carrier_error', carrier_code: 'TIMEOUT' });
      expect(slow.body.errors[0].message).toMatch(/did not answer within 1000 ms/);
    } finally {
      stub.setMode('ok');
    }
    expect(await state(orderId)).toEqual(before);
    expect((await call(SELLER, 'GET', `/v9/shipments/${id}/tracking_events`)).body.tracking_events).toEqual([]);
    expect((await download(SELLER, id)).status).toBe(404);

    // A tracker EasyPost will not register leaves the number set, tracked by the seller's reports.
    try {
      stub.setMode('error');
      const set = await call(SELLER, 'PUT', `/v9/shipments/${id}/tracking`, { tracking_number: UPS });
      expect(set.status).toBe(200);
    } finally {
      stub.setMode('ok');
    }
    const [row] = await sql()`select tracking_number as n, carrier_tracker_id as t from shipments where id = ${id}`;
    expect(row).toEqual({ n: UPS, t: null });
    await retireTracking(id);
  });

  it('webhooks: a bad or missing signature is 401; an unknown tracking code is kept without effect', async () => {
    const { orderId, id } = await mailed('UPS');
    const trackers = stub.calls.filter((c) => c.path === '/v2/trackers').length;
    expect((await call(SELLER, 'PUT', `/v9/shipments/${id}/tracking`, { tracking_number: UPS })).status).toBe(200);
    // With a carrier account the number is registered as a tracker: its scans, not the seller's word, deliver it.
    const registered = stub.calls.filter((c) => c.path === '/v2/trackers');
    expect(registered).toHaveLength(trackers + 1);
    expect(registered.at(-1)!.body).toEqual({ tracker: { tracking_code: UPS, carrier: 'UPS' } });
    const [tracked] = await sql()`select carrier_tracker_id as t from shipments where id = ${id}`;
    expect(tracked!.t).toBe('trk_0000000000000000000000000000001');
    const before = await state(orderId);
    const body = recordedText('tracker-updated-in-transit.json');
    expect((await webhook(body, null)).status).toBe(401);
    expect((await webhook(body, easypostSignature('another-secret', body))).status).toBe(401);
    const tampered = body.replace('Departed from facility', 'Departed');
    const bad = await webhook(tampered, easypostSignature(SECRET, body));
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('unauthorized');
    expect(await state(orderId)).toEqual(before);

    const unknown = body
      .replaceAll(UPS, '1Z999AA10123456784')
      .replace('evt_intransit', 'evt_unknowncode')
      .replace('trk_0000000000000000000000000000001', 'trk_unknown000000000000000000000001');
    const res = await webhook(unknown);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ taken: false, shipment_id: null });
    expect(await state(orderId)).toEqual(before);
    const [kept] = await sql()`select outcome from carrier_events where event_id like 'evt_unknowncode%'`;
    expect(kept).toEqual({ outcome: 'unknown_tracking_code' });

    // The real one moves it; the seller's own tracking events stay theirs.
    // An event id is taken once across shipments: the first test's late copy used this one's.
    // The order's deadline lies before the carrier's estimate: shipment.at_risk, once.
    const deliverBy = new Date(Date.now() + 5 * 86_400_000).toISOString();
    const estimate = new Date(Date.now() + 10 * 86_400_000).toISOString();
    await sql()`update orders set deliver_by = ${deliverBy} where id = ${orderId}`;
    const late = body
      .replace('evt_intransit', 'evt_secondone')
      .replace('"est_delivery_date": "2026-11-22T18:00:00Z"', `"est_delivery_date": "${estimate}"`);
    const ok = await webhook(late);
    expect(ok.status).toBe(200);
    expect(await state(orderId)).toMatchObject({ shipment: 'in_transit', scans: 1 });
    expect((await webhook(late.replace('evt_secondone', 'evt_thirdone0'))).status).toBe(200);
    const history = (await call(BUYER, 'GET', `/v9/orders/${orderId}/events`)).body.events;
    expect(history.map((e: any) => e.kind)).toEqual(['created', 'updated', 'airbill_created', 'in_transit', 'at_risk']);
    expect(history.at(-1)).toMatchObject({
      actor: { type: 'system', reason: 'carrier_estimate' },
      details: { estimated_delivery_at: new Date(estimate).toISOString(), deliver_by: deliverBy },
    });
    expect((await call(BUYER, 'GET', `/v9/shipments/${id}`)).body.estimated_delivery_at).toBe(new Date(estimate).toISOString());
    await retireTracking(id);
  });

  it('the producer client: chooseMailedDelivery, attachAirbill (a stored label, by hash), addTrackingEvent', async () => {
    const { orderId, id: tbd } = await accepted();
    const other = await mailed('USPS');
    const pdf = await makePdf(1, 'client label');
    const up = await call(SELLER, 'POST', `/v9/shipments/${other.id}/airbill`, { airbill: b64(pdf), tracking_number: USPS });
    expect(up.status).toBe(200);
    await retireTracking(other.id);
    const client = new FulfilmentClient({ redisUrl: t.config.REDIS_URL, prefix: t.prefix, defaultTimeoutMs: 15_000 });
    try {
      const seller = { brokerageId: 1, await: true } as const;
      const chosen = await client.chooseMailedDelivery({ shipment_id: tbd, type: 'USPS', ship_to_address_attributes: ADDRESS }, seller);
      expect(chosen.status).toBe(200);
      const id = (chosen.body as { id: number }).id;
      await expect(client.chooseMailedDelivery({ shipment_id: id, type: 'UPS' } as never, seller)).rejects.toThrow(
        /ship_to_address_attributes/,
      );
      const attached = await client.attachAirbill(
        { shipment_id: id, by: 'seller', sha256: up.body.airbill.sha256, tracking_number: USPS },
        seller,
      );
      expect(attached.status, JSON.stringify(attached.body)).toBe(200);
      const wrong = await client.attachAirbill(
        { shipment_id: id, by: 'seller', sha256: up.body.airbill.sha256, tracking_number: UPS },
        seller,
      );
      expect(wrong.status).toBe(400);
      expect((await client.completeShipment({ shipment_id: id }, seller)).status).toBe(200);
      const done = await client.addTrackingEvent({ shipment_id: id, status: 'delivered', occurred_at: new Date().toISOString() }, seller);
      expect(done.status).toBe(200);
      expect(await state(orderId)).toMatchObject({ order: 'completed', shipment: 'delivered' });
      await retireTracking(id);
    } finally {
      await client.close();
    }
  });

  it('the deadline: a mailed shipment in transit with an on-time estimate is not overdue; with a late one it is', async () => {
    const { orderId, id } = await mailed('UPS');
    expect((await call(SELLER, 'PUT', `/v9/shipments/${id}/tracking`, { tracking_number: UPS })).status).toBe(200);
    expect((await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {})).body.state).toBe('in_transit');
    const deliverBy = new Date(Date.now() - 60_000);
    await sql()`update orders set deliver_by = ${deliverBy.toISOString()}, due_soon_at = ${deliverBy.toISOString()} where id = ${orderId}`;
    await sql()`update shipments set estimated_delivery_at = ${new Date(deliverBy.getTime() - 3_600_000).toISOString()} where id = ${id}`;
    expect(await fireTimer(t.db.database, orderId, 'overdue')).toEqual({ kind: 'on_time_in_transit' });
    const overdue = async () =>
      (await sql()`select count(*)::int as n from shipment_events where order_id = ${orderId} and kind = 'overdue'`)[0]!.n;
    expect(await overdue()).toBe(0);
    await sql()`update shipments set estimated_delivery_at = ${new Date(Date.now() + 86_400_000).toISOString()} where id = ${id}`;
    expect(['fired', 'already_fired']).toContain((await fireTimer(t.db.database, orderId, 'overdue')).kind);
    expect(await overdue()).toBe(1);
    await retireTracking(id);
  });
});
