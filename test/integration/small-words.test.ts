import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { baseFixture, BUYER, SELLER } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { b64, makePdf } from '../support/test-files.ts';

// The words a new integrator reads: a replaced e-ticket's 404 names what replaced it; "an Eticket
// shipment"; a webhook filter takes the dotted types events carry (D-132); README's client
// example takes its ids from the answers.

const ORDER_IDS = [980, 981];

describe('small words', () => {
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

  async function eticketShipment(orderId: number): Promise<number> {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'Eticket' });
    expect(updated.status).toBe(200);
    return updated.body.id;
  }

  it("a replaced e-ticket's 404 says it was replaced, and by which upload", async () => {
    const id = await eticketShipment(ORDER_IDS[0]!);
    const first = await call(SELLER, 'POST', `/v9/shipments/${id}/etickets`, { etickets: [{ eticket: b64(await makePdf(2, 'one')) }] });
    expect(first.status).toBe(200);
    const second = await call(SELLER, 'POST', `/v9/shipments/${id}/etickets`, { etickets: [{ eticket: b64(await makePdf(2, 'two')) }] });
    expect(second.status).toBe(200);
    const old = first.body.etickets[0];
    const uploads = (await call(BUYER, 'GET', `/v9/shipments/${id}/etickets`)).body.uploads as Array<{
      id: number;
      replaced_at: string | null;
    }>;
    const live = uploads.find((u) => u.replaced_at === null)!;
    const res = await signedFetch(t.url, BUYER, 'GET', old.url);
    expect(res.status).toBe(404);
    const body = (await res.json()) as { errors: Array<{ code: string; message: string }> };
    expect(body.errors[0]!.code).toBe('not_found');
    expect(body.errors[0]!.message).toBe(
      `e-ticket ${old.id} of shipment ${id} was replaced by upload ${live.id} (e-ticket ${second.body.etickets[0].id}); GET /v9/shipments/${id}/etickets lists the current ones`,
    );
  });

  it('says "an Eticket shipment"', async () => {
    const id = await eticketShipment(ORDER_IDS[1]!);
    const res = await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, { x_mobile_link: 'https://claim.example.test/x' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe('x_mobile_link: an Eticket shipment is completed without a link');
  });

  it('a webhook filter takes the public dotted types as well as the kinds, and answers kinds', async () => {
    const created = await call(SELLER, 'POST', '/v9/webhook_endpoints', {
      url: 'http://127.0.0.1:9/hook',
      event_kinds: ['shipment.created', 'order.rejected', 'overdue'],
    });
    expect(created.status).toBe(201);
    expect(created.body.event_kinds).toEqual(['created', 'rejected', 'overdue']);
    const twice = await call(SELLER, 'POST', '/v9/webhook_endpoints', {
      url: 'http://127.0.0.1:9/hook',
      event_kinds: ['created', 'shipment.created'],
    });
    expect(twice.status).toBe(400);
    expect(twice.body.errors[0].message).toBe('event_kinds: must not repeat a kind');
    const unknown = await call(SELLER, 'POST', '/v9/webhook_endpoints', {
      url: 'http://127.0.0.1:9/hook',
      event_kinds: ['shipment.teleported'],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].message).toContain('shipment.created');
  });

  it("README's client example takes its shipment ids from the answers, not literals the demo data lacks", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain('client.updateShipment(');
    expect(readme).not.toMatch(/shipmentId: \d/);
  });
});
