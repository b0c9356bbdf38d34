import { EXAMPLES } from '../../src/http/openapi/examples.ts';
import { expect } from 'vitest';
import { SELLER } from './fixtures.ts';
import { signedFetch, type SigningCredential } from './http.ts';

export interface ApiResponse {
  status: number;
  body: any;
  headers: Headers;
}

/** A signed JSON call against a test service: the status and parsed body in one object. */
export function apiClient(baseUrl: string) {
  return async function call(
    cred: SigningCredential,
    method: string,
    path: string,
    body?: object | string,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> {
    const res = await signedFetch(baseUrl, cred, method, path, body, headers);
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
}

export const SELLER_PICKUP_BODY = EXAMPLES.sellerPickup;
export const BUYER_PICKUP_BODY = EXAMPLES.buyerPickup;

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

/** One TBD order's link delivery, three events: accepted (created), XMobileLink (updated), completed. */
export async function linkDeliveryFlow(call: ReturnType<typeof apiClient>, orderId: number): Promise<void> {
  const accepted = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
  expect(accepted.status).toBe(200);
  const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'XMobileLink' });
  expect(updated.status).toBe(200);
  const done = await call(SELLER, 'PUT', `/v9/shipments/${updated.body.id}/complete`, { x_mobile_link: 'https://x.test/c' });
  expect(done.status).toBe(200);
}
