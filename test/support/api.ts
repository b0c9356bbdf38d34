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

export const SELLER_PICKUP_BODY = {
  ship_from_name: 'Sam Seller',
  ship_from_phone_number_attributes: { label: 'work', country_code: '+1', number: '2125550100', extension: '12' },
  ship_from_address_attributes: {
    name: 'Box Office',
    street_address: '1 Main St',
    extended_address: 'Suite 2',
    locality: 'New York',
    region: 'NY',
    postal_code: '10001',
    country_code: 'US',
  },
  pickup_time_range: '6pm-7pm on show day',
  pickup_instructions: 'Ask for Sam at will call',
};

export const BUYER_PICKUP_BODY = {
  ship_to_name: 'Bo Buyer',
  phone_number_attributes: { label: 'cell', country_code: '+1', number: '3125550199', extension: null },
  notes: 'Arriving late',
};

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
