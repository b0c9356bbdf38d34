/**
 * Two integrator programs, as docs/API.md §Generating a client describes them, written next to
 * freshly generated code and compiled under `strict` with NodeNext (test/integration/
 * generated-clients-strict.test.ts): one on openapi-typescript's types with openapi-fetch, one on
 * @hey-api/openapi-ts's SDK. Each runs one flow: accept, update to Eticket, upload the e-tickets,
 * complete with barcodes; reject an order; propose a cancellation; the inventory index in both
 * modes. They sign as docs/API.md §Signature says, with node:crypto only.
 */

/** What each program's `run` is given and answers. */
export interface FlowInput {
  baseUrl: string;
  token: string;
  secret: string;
  orders: { deliver: number; reject: number; cancel: number };
  /** base64 of a PDF with one page per ticket of the order. */
  pdf: string;
  officeId: number;
}

const SIGN = `
import { createHmac } from 'node:crypto';

export interface FlowInput {
  baseUrl: string;
  token: string;
  secret: string;
  orders: { deliver: number; reject: number; cancel: number };
  pdf: string;
  officeId: number;
}

export async function sign(request: Request, token: string, secret: string): Promise<Request> {
  const url = new URL(request.url);
  const body = request.body === null ? '' : await request.clone().text();
  const rest = body !== '' ? body : url.search.slice(1);
  request.headers.set('x-token', token);
  request.headers.set('x-signature', createHmac('sha256', secret).update(\`\${request.method} \${url.hostname}\${url.pathname}?\${rest}\`).digest('base64'));
  return request;
}
`;

const OPENAPI_FETCH = `
import createClient from 'openapi-fetch';
import type { paths } from './fulfil.js';
import { sign, type FlowInput } from './sign.js';

function failed(what: string, error: { errors: Array<{ message: string }> } | undefined): never {
  throw new Error(\`\${what}: \${error?.errors.map((e) => e.message).join('; ') ?? 'no answer'}\`);
}

export async function run(input: FlowInput): Promise<Record<string, unknown>> {
  const api = createClient<paths>({ baseUrl: input.baseUrl });
  api.use({ onRequest: ({ request }) => sign(request, input.token, input.secret) });

  const accepted = await api.POST('/v9/orders/{id}/accept', { params: { path: { id: input.orders.deliver } }, body: { reviewer_id: 100 } });
  if (!accepted.data) failed('accept', accepted.error);
  if ('status' in accepted.data) throw new Error('accept was queued');
  const first = accepted.data.shipments[0];
  if (!first) throw new Error('accept answered no shipment');

  const updated = await api.PUT('/v9/shipments/{id}', { params: { path: { id: first.id } }, body: { mobile_transfer_type: 'Eticket' } });
  if (!updated.data) failed('update', updated.error);
  if ('status' in updated.data) throw new Error('update was queued');
  const shipmentId = updated.data.id;

  const uploaded = await api.POST('/v9/shipments/{id}/etickets', { params: { path: { id: shipmentId } }, body: { etickets: [{ eticket: input.pdf }] } });
  if (!uploaded.data) failed('upload', uploaded.error);
  if ('status' in uploaded.data) throw new Error('upload was queued');

  const completed = await api.PUT('/v9/shipments/{id}/complete', {
    params: { path: { id: shipmentId } },
    body: { tickets: [{ seat: '1', barcode: 'A-1' }, { seat: '2', barcode: 'A-2' }], transfer_source: 'ticketmaster' },
  });
  if (!completed.data) failed('complete', completed.error);
  if ('status' in completed.data) throw new Error('complete was queued');

  const rejected = await api.POST('/v9/orders/{id}/reject', {
    params: { path: { id: input.orders.reject } },
    body: { reviewer_id: 100, reason: 'Tickets No Longer Available' },
  });
  if (!rejected.data) failed('reject', rejected.error);
  if ('status' in rejected.data) throw new Error('reject was queued');

  await api.POST('/v9/orders/{id}/accept', { params: { path: { id: input.orders.cancel } }, body: { reviewer_id: 100 } });
  const canceled = await api.POST('/v9/orders/{id}/cancel', { params: { path: { id: input.orders.cancel } }, body: { reason: 'event moved' } });
  if (!canceled.data) failed('cancel', canceled.error);
  if ('status' in canceled.data) throw new Error('cancel was queued');

  const index = await api.GET('/v9/inventory', { params: { query: { office_id: input.officeId, state: 'ALL' } } });
  if (!index.data) failed('inventory index', index.error);
  const detailed = await api.GET('/v9/inventory', { params: { query: { office_id: input.officeId, response: 'detailed', 'page[items]': 10 } } });
  if (!detailed.data) failed('detailed inventory', detailed.error);

  return {
    completed: completed.data.state,
    etickets: uploaded.data.etickets.length,
    rejected: rejected.data.state,
    canceled: canceled.data.state,
    index: Array.isArray(index.data) ? index.data.length : -1,
    detailed: 'inventory' in detailed.data ? detailed.data.inventory.length : -1,
  };
}
`;

const HEY_API = `
import { createClient, createConfig } from './hey/client/index.js';
import * as sdk from './hey/sdk.gen.js';
import { sign, type FlowInput } from './sign.js';

function answered<T>(what: string, answer: { data?: T; error?: unknown }): Exclude<T, { status: 'queued' }> {
  if (answer.data === undefined) throw new Error(\`\${what}: \${JSON.stringify(answer.error)}\`);
  const data = answer.data;
  if (typeof data === 'object' && data !== null && 'status' in data && data.status === 'queued') throw new Error(\`\${what} was queued\`);
  return data as Exclude<T, { status: 'queued' }>;
}

export async function run(input: FlowInput): Promise<Record<string, unknown>> {
  const client = createClient(createConfig({ baseUrl: input.baseUrl }));
  client.interceptors.request.use((request) => sign(request, input.token, input.secret));

  const accepted = answered('accept', await sdk.acceptOrder({ client, path: { id: input.orders.deliver }, body: { reviewer_id: 100 } }));
  const first = accepted.shipments[0];
  if (!first) throw new Error('accept answered no shipment');
  const updated = answered('update', await sdk.updateShipment({ client, path: { id: first.id }, body: { mobile_transfer_type: 'Eticket' } }));
  const uploaded = answered('upload', await sdk.uploadEtickets({ client, path: { id: updated.id }, body: { etickets: [{ eticket: input.pdf }] } }));
  const completed = answered(
    'complete',
    await sdk.completeShipment({
      client,
      path: { id: updated.id },
      body: { tickets: [{ seat: '1', barcode: 'B-1' }, { seat: '2', verification_id: 'V-2' }], transfer_source: 'TM' },
    }),
  );
  const rejected = answered(
    'reject',
    await sdk.rejectOrder({ client, path: { id: input.orders.reject }, body: { reviewer_id: 100, reason: 'Duplicate Order' } }),
  );
  answered('accept', await sdk.acceptOrder({ client, path: { id: input.orders.cancel }, body: { reviewer_id: 100 } }));
  const canceled = answered('cancel', await sdk.cancelOrder({ client, path: { id: input.orders.cancel }, body: { reason: 'event moved' } }));
  const index = answered('inventory index', await sdk.listInventory({ client, query: { office_id: input.officeId, state: 'ALL' } }));
  const detailed = answered(
    'detailed inventory',
    await sdk.listInventory({ client, query: { office_id: input.officeId, response: 'detailed', 'page[items]': 10 } }),
  );
  return {
    completed: completed.state,
    etickets: uploaded.etickets.length,
    rejected: rejected.state,
    canceled: canceled.state,
    index: Array.isArray(index) ? index.length : -1,
    detailed: 'inventory' in detailed ? detailed.inventory.length : -1,
  };
}
`;

/** The programs' files, by name in the folder that also holds `fulfil.ts` (openapi-typescript) and `hey/` (hey-api). */
export const CLIENT_PROGRAMS: Record<string, string> = {
  'sign.ts': SIGN,
  'openapi-fetch-flow.ts': OPENAPI_FETCH,
  'hey-api-flow.ts': HEY_API,
};
