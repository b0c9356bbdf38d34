import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { startEmbeddedService } from '../support/built-service.ts';
import { baseFixture, BUYER, ORDERS, SELLER } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { testPrefix } from '../support/redis.ts';
import { b64, makePdf } from '../support/test-files.ts';

/**
 * E-tickets as `npm start` runs them on a fresh machine: the built service on the embedded
 * database (no DATABASE_URL), whose `bytea` keeps the files; parsed in the service's threads.
 */
describe('e-tickets on the embedded database', () => {
  let service: Awaited<ReturnType<typeof startEmbeddedService>>;
  beforeAll(async () => {
    service = await startEmbeddedService({ prefix: testPrefix(), seed: baseFixture() });
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
  }, 60_000);

  it('upload → complete → the buyer downloads the same bytes, also with a one-time link', async () => {
    const call = apiClient(service.url);
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'Eticket' });
    const pdf = await makePdf(2, 'embedded', 2 * 1024 * 1024);
    const up = await call(SELLER, 'POST', `/v9/shipments/${updated.body.id}/etickets`, { etickets: [{ eticket: b64(pdf) }] });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect((await call(SELLER, 'PUT', `/v9/shipments/${updated.body.id}/complete`)).status).toBe(200);
    const got = await signedFetch(service.url, BUYER, 'GET', up.body.etickets[0].url);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(pdf)).toBe(true);
    const link = await call(BUYER, 'POST', `/v9/shipments/${updated.body.id}/etickets/link`, {});
    const once = await fetch(new URL(new URL(link.body.url).pathname, service.url), { method: 'POST' });
    expect(Buffer.from(await once.arrayBuffer()).equals(pdf)).toBe(true);
    expect((await fetch(new URL(new URL(link.body.url).pathname, service.url), { method: 'POST' })).status).toBe(404);
  });
});
