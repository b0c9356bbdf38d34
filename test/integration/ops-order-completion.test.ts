import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

// The ops order view shows what completed the shipment (the platform, the link, each seat's
// ticket), its timers in words with the reason for a reminder due before the order existed, and
// an unknown /ops page is a page, not JSON.

const BARCODES = 985;
const LINK = 986;
const SOON = 987;

describe('ops order view: what completed the shipment', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService();
    const fixture = baseFixture([BARCODES, LINK, SOON]);
    for (const o of fixture.orders as Array<Record<string, unknown>>) {
      if (o.id === SOON) o.deliver_by = new Date(Date.now() + 3600_000).toISOString();
    }
    await t.seed(fixture);
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  async function shipmentOf(orderId: number, type: string): Promise<number> {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: type });
    expect(updated.status).toBe(200);
    return updated.body.id;
  }
  const view = async (orderId: number) => (await fetch(`${t.url}/ops/orders/${orderId}`)).text();

  it('the per-seat tickets and the transfer source', async () => {
    const id = await shipmentOf(BARCODES, 'XMobile');
    const done = await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {
      tickets: [
        { seat: '11', barcode: 'BC-0011' },
        { seat: '12', primary_ticket_id: 'TM-12' },
      ],
      transfer_source: 'ticketmaster',
    });
    expect(done.status).toBe(200);
    const page = await view(BARCODES);
    expect(page).toContain('<table id="completion"');
    expect(page).toMatch(/data-field="transfer_source"><td>transfer source<\/td><td>TM<\/td>/);
    expect(page).toContain('<tr class="live" data-seat="11"><td>11</td><td>barcode</td><td class="mono">BC-0011</td><td>live</td></tr>');
    expect(page).toContain(
      '<tr class="live" data-seat="12"><td>12</td><td>primary ticket id</td><td class="mono">TM-12</td><td>live</td></tr>',
    );
  });

  it('the x_mobile_link', async () => {
    const id = await shipmentOf(LINK, 'XMobileLink');
    const done = await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, { x_mobile_link: 'https://claim.example.test/a' });
    expect(done.status).toBe(200);
    const page = await view(LINK);
    expect(page).toMatch(
      /<tr data-field="x_mobile_link"><td>x_mobile_link<\/td><td><a href="https:\/\/claim\.example\.test\/a" rel="noreferrer">/,
    );
    expect(page).toContain('<p id="seat-tickets">No per-seat tickets');
  });

  it('the timers in words, and why a reminder is due before the order existed', async () => {
    const page = await view(SOON);
    expect(page).toMatch(
      /<td>reminder \(shipment\.due_soon\)<\/td><td id="order-reminder">due \d{4}-[^<]*\(due before the order existed: /,
    );
    expect(page).toMatch(/<td>deadline \(shipment\.overdue\)<\/td><td id="order-timers">due \d{4}-[^<]*, not fired yet<\/td>/);
  });

  it('an unknown /ops page answers a page', async () => {
    const res = await fetch(`${t.url}/ops/nope?x=1`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const text = await res.text();
    expect(text).toMatch(/^<!doctype html>/);
    expect(text).toContain('There is no operator page GET /ops/nope.');
    // The API's unknown routes stay JSON.
    expect((await fetch(`${t.url}/v9/nope`)).headers.get('content-type')).toMatch(/^application\/json/);
  });
});
