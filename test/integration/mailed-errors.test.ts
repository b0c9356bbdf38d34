import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { completedEticketOrder } from '../support/delivery-issue-flow.ts';
import { easypostSignature, startEasyPostStub } from '../support/easypost-stub.ts';
import { baseFixture, BUYER, SELLER, BUYER_ADDRESS } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { b64, makePdf } from '../support/test-files.ts';

// Issue 54, findings 2 and 7: errors that name the field (the airbill's closest form, a wrong
// check digit, the seat's spelling, the carrier route's 400 and 413), a replaced mailed shipment's
// reads answering 410, and an upload onto a bought label refused with 409 (D-163, D-164).

const ORDER_IDS = Array.from({ length: 8 }, (_, i) => 1460 + i);
const SECRET = 'whsec-mailed-errors-test';
const UPS = '1Z5R89390357567127';
const UPS_MISTYPED = '1Z5R89390357567128';
const ADDRESS = BUYER_ADDRESS;

describe('mailed shipments: errors that name the field, reads of a replaced id, uploads onto a bought label', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let stub: Awaited<ReturnType<typeof startEasyPostStub>>;
  let next = 0;
  let pdf: string;

  beforeAll(async () => {
    stub = await startEasyPostStub();
    t = await startTestService({
      env: {
        EASYPOST_API_KEY: 'EZTKtest0000000000000000000000',
        EASYPOST_WEBHOOK_SECRET: SECRET,
        EASYPOST_BASE_URL: stub.baseUrl,
        EASYPOST_TIMEOUT_MS: '1000',
        EASYPOST_FROM_ADDRESS_ID: 'adr_from0000000000000000000000000001',
      },
    });
    await t.seed(baseFixture(ORDER_IDS));
    call = apiClient(t.url);
    pdf = b64(await makePdf(1, 'label'));
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    await stub?.close();
  });

  async function ups(): Promise<number> {
    const orderId = ORDER_IDS[next++]!;
    const accepted = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const res = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, {
      type: 'UPS',
      ship_to_address_attributes: ADDRESS,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id as number;
  }

  const errorOf = (res: { body: { errors: Array<{ message: string; field?: string; code: string }> } }) => res.body.errors;

  it('an airbill body is told against its closest form: the missing or extra field named', async () => {
    const id = await ups();
    const onlyFile = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, { airbill: pdf });
    expect(onlyFile.status).toBe(400);
    expect(errorOf(onlyFile)).toEqual([
      { code: 'invalid_params', message: 'tracking_number: required with airbill', field: 'tracking_number' },
    ]);
    const onlyNumber = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, { tracking_number: UPS });
    expect(errorOf(onlyNumber)).toEqual([{ code: 'invalid_params', message: 'airbill: required with tracking_number', field: 'airbill' }]);
    const extra = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, { airbill: pdf, tracking_number: UPS, service: 'Ground' });
    expect(errorOf(extra)).toEqual([{ code: 'invalid_params', message: 'service: unknown field', field: 'service' }]);
    const stranger = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, { label: pdf });
    expect(errorOf(stranger)).toEqual([{ code: 'invalid_params', message: 'label: unknown field', field: 'label' }]);
  });

  it('a mistyped UPS number says its check digit is wrong', async () => {
    const id = await ups();
    const res = await call(SELLER, 'PUT', `/v9/shipments/${id}/tracking`, { tracking_number: UPS_MISTYPED });
    expect(res.status).toBe(400);
    expect(errorOf(res)[0]!.message).toBe(
      `tracking_number: ${UPS_MISTYPED} has the form of a UPS tracking number, but its check digit is wrong (a digit mistyped?)`,
    );
    const upload = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, { airbill: pdf, tracking_number: UPS_MISTYPED });
    expect(errorOf(upload)[0]!.message).toMatch(/check digit is wrong/);
  });

  it('a seat not on the order: the message spells the field as its `field` does (seats.0)', async () => {
    const orderId = ORDER_IDS[next++]!;
    await completedEticketOrder(call, orderId);
    const res = await call(BUYER, 'POST', `/v9/orders/${orderId}/delivery_issues`, { reason: 'not_received', seats: ['99'] });
    expect(res.status).toBe(400);
    const [e] = errorOf(res);
    expect(e!.field).toBe('seats.0');
    expect(e!.message.startsWith('seats.0: seat 99 is not on order')).toBe(true);
  });

  it('the carrier route: a signed body that is not JSON is 400; unsigned, 401; over its limit, 413 naming 256 KiB', async () => {
    const post = (body: string, signed = true) =>
      fetch(`${t.url}/carriers/easypost/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(signed ? { 'x-hmac-signature': easypostSignature(SECRET, body) } : {}) },
        body,
      });
    const malformed = await post('{"object": "Event", ');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).toMatch(/^body: not valid JSON/);
    expect((await post('{"object": "Event", ', false)).status).toBe(401);
    const forged = await fetch(`${t.url}/carriers/easypost/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hmac-signature': 'hmac-sha256-hex=00' },
      body: '{"object": "Event", ',
    });
    expect(forged.status).toBe(401);
    const big = await post(JSON.stringify({ object: 'Event', pad: 'x'.repeat(300 * 1024) }));
    expect(big.status).toBe(413);
    expect(((await big.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).toBe(
      'request body is larger than 256 KiB, the limit of this route',
    );
    const fits = await post(JSON.stringify({ object: 'Event', description: 'other.event', pad: 'x'.repeat(100 * 1024) }));
    expect(fits.status).toBe(200);
  });

  it('an upload onto a bought label is 409 label_bought with a sentence, and the bought label stands', async () => {
    const id = await ups();
    const bought = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, {});
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
    const before = Buffer.from(await (await signedFetch(t.url, SELLER, 'GET', `/v9/shipments/${id}/airbill`)).arrayBuffer());
    const upload = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, { airbill: pdf, tracking_number: UPS });
    expect(upload.status).toBe(409);
    expect(errorOf(upload)[0]).toMatchObject({
      code: 'label_bought',
      message: expect.stringMatching(/has a label bought through the carrier account; it stands/),
    });
    const after = Buffer.from(await (await signedFetch(t.url, SELLER, 'GET', `/v9/shipments/${id}/airbill`)).arrayBuffer());
    expect(after.equals(before)).toBe(true);
    expect((await call(SELLER, 'GET', `/v9/shipments/${id}`)).body.tracking_number).toBe(bought.body.tracking_number);
  });

  it('a replaced mailed shipment id answers 410 with replaced_by for its airbill and its scans', async () => {
    const id = await ups();
    // A number of its own: one envelope, one number (an earlier test's shipment holds UPS).
    const uploaded = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, { airbill: pdf, tracking_number: '1Z999AA10123456784' });
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
    const moved = await call(SELLER, 'PUT', `/v9/shipments/${id}`, {
      type: 'UPS',
      ship_to_address_attributes: { ...ADDRESS, street_address: '2 Main St' },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const live = moved.body.id as number;
    expect(live).not.toBe(id);
    for (const cred of [SELLER, BUYER]) {
      const airbill = await call(cred, 'GET', `/v9/shipments/${id}/airbill`);
      expect(airbill.status).toBe(410);
      expect(errorOf(airbill)[0]).toMatchObject({ code: 'shipment_replaced', replaced_by: live });
      const scans = await call(cred, 'GET', `/v9/shipments/${id}/tracking_events`);
      expect(scans.status).toBe(410);
      expect(errorOf(scans)[0]).toMatchObject({ code: 'shipment_replaced', replaced_by: live });
    }
    expect((await call(BUYER, 'GET', `/v9/shipments/${live}/tracking_events`)).status).toBe(200);
  });
});
