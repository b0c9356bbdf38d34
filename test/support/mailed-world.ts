import { expect } from 'vitest';
import { detectTrackingNumber } from '../../src/domain/tracking-numbers.ts';
import { apiClient } from './api.ts';
import { easypostSignature, recorded, startEasyPostStub } from './easypost-stub.ts';
import { baseFixture, BUYER_ADDRESS, SELLER } from './fixtures.ts';
import { startTestService, type TestService } from './service.ts';

// Mailed shipments against the real service and the EasyPost stub, for the tests of who may say
// what about an envelope: orders to mail, signed tracker events built from the recorded shape.

export const WEBHOOK_SECRET = 'whsec-delivery-facts-test';

export const ADDRESS = BUYER_ADDRESS;

/** The next number of a carrier's series after `number`: the serial part plus one, with its check digit. */
export function nextInSeries(number: string): string {
  const carrier = detectTrackingNumber(number).carrier;
  const body = number.slice(0, -1);
  const digits = /(\d+)$/.exec(body)![1]!;
  const next = String(BigInt(digits) + 1n).padStart(digits.length, '0');
  const stem = body.slice(0, body.length - digits.length) + next;
  for (let check = 0; check <= 9; check++) {
    if (detectTrackingNumber(`${stem}${check}`).carrier === carrier) return `${stem}${check}`;
  }
  throw new Error(`no next number after ${number}`);
}

export interface Scan {
  status: 'in_transit' | 'out_for_delivery' | 'delivered' | 'return_to_sender' | 'failure';
  datetime: string;
}

/** A tracker.updated event as EasyPost sends it (test/easypost/tracker-updated-delivered.json), for this tracker and number. */
export function trackerEvent(e: { eventId: string; trackerId: string; code: string; scans: Scan[] }): string {
  const event = recorded('tracker-updated-delivered.json');
  event.id = e.eventId;
  event.result.id = e.trackerId;
  event.result.tracking_code = e.code;
  event.result.status = e.scans.at(-1)?.status ?? 'unknown';
  event.result.est_delivery_date = null;
  event.result.tracking_details = e.scans.map((s) => ({
    object: 'TrackingDetail',
    message: s.status,
    description: '',
    status: s.status,
    status_detail: 'status_update',
    datetime: s.datetime,
    source: 'UPS',
    carrier_code: '',
    tracking_location: { object: 'TrackingLocation', city: 'CHICAGO', state: 'IL', country: 'US', zip: '60601' },
  }));
  return JSON.stringify(event);
}

/** A third credential of the seller's brokerage (the standard world has two). */
export const SELLER_THIRD = { token: 'SellerApiToken000000000000000003', secret: 'seller-api-secret-0000000000000000000003' };

export async function startMailedWorld(orderIds: number[]) {
  const stub = await startEasyPostStub();
  const t: TestService = await startTestService({
    env: {
      EASYPOST_API_KEY: 'EZTKtest0000000000000000000000',
      EASYPOST_WEBHOOK_SECRET: WEBHOOK_SECRET,
      EASYPOST_BASE_URL: stub.baseUrl,
      EASYPOST_TIMEOUT_MS: '2000',
      EASYPOST_FROM_ADDRESS_ID: 'adr_from0000000000000000000000000001',
    },
  });
  const fixture = baseFixture(orderIds);
  fixture.brokerages[0]!.credentials.push({ kind: 'api' as const, ...SELLER_THIRD });
  await t.seed(fixture);
  const call = apiClient(t.url);
  let next = 0;
  const sql = () => t.db.database.sql!;

  return {
    t,
    stub,
    call,
    sql,
    /** A new order accepted and mailed by `type`: its order id and live shipment id. */
    async mailed(type = 'UPS'): Promise<{ orderId: number; id: number }> {
      const orderId = orderIds[next++]!;
      const accepted = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
      expect(accepted.status).toBe(200);
      const res = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, {
        type,
        ship_to_address_attributes: ADDRESS,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { orderId, id: res.body.id };
    },
    /** The number set by the seller; `tracked: false` as when EasyPost will not register its tracker. */
    async setNumber(id: number, number: string, tracked = true) {
      if (!tracked) stub.setMode('error');
      try {
        return await call(SELLER, 'PUT', `/v9/shipments/${id}/tracking`, { tracking_number: number });
      } finally {
        stub.setMode('ok');
      }
    },
    webhook(body: string) {
      return fetch(`${t.url}/carriers/easypost/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hmac-signature': easypostSignature(WEBHOOK_SECRET, body) },
        body,
      });
    },
    async state(orderId: number) {
      const [row] = await sql()`select o.state as "order", s.state as shipment, s.tracking_number as tracking
        from orders o join shipments s on s.order_id = o.id and s.replaced_by is null where o.id = ${orderId}`;
      return row as unknown as { order: string; shipment: string; tracking: string | null };
    },
    async trackerOf(id: number): Promise<string | null> {
      const [row] = await sql()`select carrier_tracker_id as t from shipments where id = ${id}`;
      return (row?.t as string | null) ?? null;
    },
    async stop() {
      await t.stop();
      await stub.close();
    },
  };
}

export type MailedWorld = Awaited<ReturnType<typeof startMailedWorld>>;

/** A time `seconds` from now, as ISO 8601. */
export const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();
