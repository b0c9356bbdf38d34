import { EXAMPLES } from '../../src/http/openapi/examples.ts';
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
