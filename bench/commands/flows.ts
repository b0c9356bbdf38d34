import http from 'node:http';
import { signRequest } from '../../src/auth/signer.ts';
import type { FulfilmentClient } from '@fulfil/client';
import type { Recorder } from './load.ts';

export const SELLER = { token: 'BenchSellerToken0000000000000001', secret: 'bench-seller-secret-00000000000000000001' };
export const BUYER = { token: 'BenchBuyerToken00000000000000002', secret: 'bench-buyer-secret-000000000000000000002' };
export const SELLER_BROKERAGE = 1;

/** Orders are seeded in pairs: an even id is delivered later (TBD), an odd one by local pickup. */
export const isPickupOrder = (orderId: number) => orderId % 2 === 1;

export const PICKUP_SELLER = {
  ship_from_name: 'Sam Seller',
  ship_from_phone_number_attributes: { label: 'work', country_code: '+1', number: '2125550100' },
  ship_from_address_attributes: {
    name: 'Box Office',
    street_address: '1 Main St',
    locality: 'New York',
    region: 'NY',
    postal_code: '10001',
    country_code: 'US',
  },
  pickup_time_range: '6pm-7pm on show day',
};
export const PICKUP_BUYER = { ship_to_name: 'Bo Buyer', phone_number_attributes: { country_code: '+1', number: '3125550199' } };

/** What a flow reads of an answer: the shipment id of an update, the first shipment of an accept. */
export interface FlowAnswer {
  id: number;
  shipments: Array<{ id: number }>;
}

type Call = (
  cred: { token: string; secret: string },
  method: string,
  path: string,
  body?: object,
) => Promise<{ status: number; text: string }>;

/** Signed keep-alive HTTP, as a broker's system calls the API. */
export function httpCaller(baseUrl: string, sockets: number): Call {
  const base = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  return (cred, method, p, body) => {
    const bytes = body === undefined ? undefined : JSON.stringify(body);
    const q = p.indexOf('?');
    const [path, query] = q === -1 ? [p, undefined] : [p.slice(0, q), p.slice(q + 1)];
    const signed = signRequest({ secret: cred.secret, method, host: base.hostname, path, query, body: bytes });
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          method,
          host: base.hostname,
          port: base.port,
          path: signed.target,
          agent,
          headers: { 'x-token': cred.token, 'x-signature': signed.signature, 'content-type': 'application/json' },
        },
        (res) => {
          res.setEncoding('utf8');
          let text = '';
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        },
      );
      // A bench that stops hearing back fails its call instead of hanging.
      req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${p}: no answer in 60 s`)));
      req.on('error', reject);
      req.end(bytes);
    });
  };
}

async function ok(rec: Recorder, send: () => Promise<{ status: number; text: string }>): Promise<FlowAnswer> {
  const res = await rec.time(send);
  if (res.status !== 200) throw new Error(`${res.status} ${res.text.slice(0, 200)}`);
  return JSON.parse(res.text) as FlowAnswer;
}

/**
 * One whole flow over HTTP: link delivery (accept → XMobileLink → complete) on an even order,
 * the local-pickup join (accept → seller's details → buyer's details, which deliver) on an odd one.
 */
export async function httpFlow(call: Call, rec: Recorder, orderId: number): Promise<void> {
  const accepted = await ok(rec, () => call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 }));
  const first = accepted.shipments[0]!.id;
  if (isPickupOrder(orderId)) {
    const seller = await ok(rec, () => call(SELLER, 'PUT', `/v9/shipments/${first}`, PICKUP_SELLER));
    await ok(rec, () => call(BUYER, 'PUT', `/v9/shipments/${seller.id}`, PICKUP_BUYER));
  } else {
    const updated = await ok(rec, () => call(SELLER, 'PUT', `/v9/shipments/${first}`, { mobile_transfer_type: 'XMobileLink' }));
    await ok(rec, () => call(SELLER, 'PUT', `/v9/shipments/${updated.id}/complete`, { x_mobile_link: 'https://claim.example.test/x' }));
  }
}

/** The same flows through the producer client, awaiting each result (no HTTP, no API row). */
export async function clientFlow(client: FulfilmentClient, rec: Recorder, orderId: number): Promise<void> {
  const send = async (name: Parameters<FulfilmentClient['send']>[0], payload: object, brokerageId: number) => {
    const out = await rec.time(() => client.send(name, payload as never, { brokerageId, await: true }));
    if (out.status !== 200) throw new Error(`${name}: ${out.status} ${JSON.stringify(out.body).slice(0, 200)}`);
    return out.body as FlowAnswer;
  };
  const accepted = await send('order.accept', { order_id: orderId, reviewer_id: 100 }, SELLER_BROKERAGE);
  const first = accepted.shipments[0]!.id;
  if (isPickupOrder(orderId)) {
    const seller = await send('shipment.update', { shipment_id: first, operation: 'seller_pickup', ...PICKUP_SELLER }, SELLER_BROKERAGE);
    await send('shipment.update', { shipment_id: seller.id, operation: 'buyer_pickup', ...PICKUP_BUYER }, 2);
  } else {
    const updated = await send(
      'shipment.update',
      { shipment_id: first, operation: 'mobile_transfer', mobile_transfer_type: 'XMobileLink' },
      SELLER_BROKERAGE,
    );
    await send('shipment.complete', { shipment_id: updated.id, x_mobile_link: 'https://claim.example.test/x' }, SELLER_BROKERAGE);
  }
}
