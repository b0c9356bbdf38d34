import type { z } from 'zod';
import { acceptBody } from '../../domain/order-accept-input.ts';
import { completeBody } from '../../domain/shipment-complete-input.ts';
import { buyerPickupBody, mobileTransferBody, sellerPickupBody } from '../../domain/shipment-update-input.ts';
import { eventsQuery } from '../../read/events-query.ts';
import { errorResponses, type ErrorStatus } from './error-responses.ts';
import { jsonSchemaOf, type JsonSchema } from './json-schema.ts';
import * as bodies from './response-bodies.ts';

// The documentation of every route, attached to it when it is registered (plugin.ts). Request
// schemas are the very zod parsers the routes validate with; the route handlers stay the only
// validators (docs/DECISIONS.md, "OpenAPI from the parsers").

export const SIGNED = [{ token: [], signature: [] }];

const idParam = (what: string) => ({
  type: 'object',
  properties: { id: { type: 'integer', minimum: 1, description: `${what} id` } },
  required: ['id'],
});

const commandHeaders = {
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      pattern: '^[\\x21-\\x7e]{1,255}$',
      description:
        'Repeat a command safely: the same key with the same request answers the first response (kept a week); with another request, 409.',
    },
    prefer: {
      type: 'string',
      description: "`respond-async`: answer 202 at once with the command's Location instead of waiting for its result.",
    },
  },
};

const accepted202 = {
  202: {
    description: 'taken but not finished (asked with `Prefer: respond-async`, or it outlasted the wait): poll the Location',
    headers: { location: { type: 'string', description: '/v9/commands/<id>' } },
    ...jsonSchemaOf(bodies.commandQueued, 'output'),
  },
};

const ok = (schema: z.ZodType, description: string) => ({ 200: { description, ...jsonSchemaOf(schema, 'output') } });

/** Errors every /v9 route can answer: authentication, rate limit, infrastructure. */
const V9_ERRORS: ErrorStatus[] = [401, 429, 503];
const COMMAND_ERRORS: ErrorStatus[] = [400, ...V9_ERRORS, 403, 404, 409, 413, 422];

function v9(doc: {
  tag: string;
  summary: string;
  description: string;
  params?: JsonSchema;
  querystring?: JsonSchema;
  headers?: JsonSchema;
  body?: JsonSchema;
  bodyOptional?: boolean;
  response: Record<number, object>;
  errors: ErrorStatus[];
}) {
  const { tag, errors, response, bodyOptional, ...rest } = doc;
  const statuses = [...new Set(errors)].sort((a, b) => a - b);
  const optional = bodyOptional ? { 'x-body-optional': true } : {};
  return { tags: [tag], security: SIGNED, ...rest, ...optional, response: { ...response, ...errorResponses(statuses) } };
}

const updateBody = {
  oneOf: [
    { title: 'Seller: mobile transfer or e-ticket', ...withLegacyTypeNames(jsonSchemaOf(mobileTransferBody)) },
    { title: 'Seller: local pickup details', ...jsonSchemaOf(sellerPickupBody) },
    { title: 'Buyer: local pickup details', ...jsonSchemaOf(buyerPickupBody) },
  ],
};

/** The legacy names existing clients send are accepted and answered with the new names. */
function withLegacyTypeNames(schema: JsonSchema): JsonSchema {
  const properties = schema.properties as Record<string, { enum: string[]; description?: string }>;
  const type = properties.mobile_transfer_type!;
  properties.mobile_transfer_type = {
    ...type,
    enum: [...type.enum, 'TMMobile', 'TMMobileLink', 'FlashSeats'],
    description: 'TMMobile, TMMobileLink and FlashSeats are legacy names of XMobile, XMobileLink and XSeats; the answer uses the new name',
  };
  return schema;
}

export const ROUTE_DOCS: Record<string, object> = {
  'POST /v9/orders/:id/accept': v9({
    tag: 'Orders',
    summary: 'Accept an order (seller)',
    description:
      'The order must be pending; it becomes accepted and gets one shipment by its delivery method: flash → XSeats (pending, with the recipient), local_pickup → LocalPickup, anything else → TBD.',
    params: idParam('order'),
    headers: commandHeaders,
    body: jsonSchemaOf(acceptBody),
    response: { ...ok(bodies.acceptedOrder, 'the accepted order with its shipment'), ...accepted202 },
    errors: COMMAND_ERRORS,
  }),
  'GET /v9/orders/:id': v9({
    tag: 'Orders',
    summary: 'Read an order (seller or buyer)',
    description: 'The order with its state and its live shipment, as both parties may see it. Read straight from the database.',
    params: idParam('order'),
    response: ok(bodies.readOrder, 'the order'),
    errors: [400, ...V9_ERRORS, 404],
  }),
  'GET /v9/orders/:id/events': v9({
    tag: 'Orders',
    summary: "The order's shipment history (seller or buyer)",
    description:
      'Every shipment creation, replacement, pickup detail, delivery and completion of the order, in `seq` order. Page with `after_seq` (the last seq you have) and `limit`; `next_after_seq` is null on the last page.',
    params: idParam('order'),
    querystring: jsonSchemaOf(eventsQuery),
    response: ok(bodies.orderEvents, 'a page of events'),
    errors: [400, ...V9_ERRORS, 404],
  }),
  'GET /v9/shipments/:id': v9({
    tag: 'Shipments',
    summary: 'Read a shipment (seller or buyer)',
    description:
      'The live shipment with every field its responses showed, and its state. An id an update replaced answers 410 with `replaced_by`.',
    params: idParam('shipment'),
    response: ok(bodies.readShipment, 'the shipment'),
    errors: [400, ...V9_ERRORS, 404, 410],
  }),
  'PUT /v9/shipments/:id': v9({
    tag: 'Shipments',
    summary: 'Update a shipment: mobile transfer, seller or buyer local pickup',
    description:
      'Rule U1: every successful update replaces the shipment; the answer carries the NEW id, to be used from then on. The old id answers 410 with `replaced_by`. The body is exactly one of the three operations, told apart by its keys. When both parties have given local pickup details the shipment is delivered and the order completed.',
    params: idParam('shipment'),
    headers: commandHeaders,
    body: updateBody,
    response: { ...ok(bodies.updatedShipment, 'the replacing shipment'), ...accepted202 },
    errors: [...COMMAND_ERRORS, 410],
  }),
  'PUT /v9/shipments/:id/complete': v9({
    tag: 'Shipments',
    summary: 'Complete a shipment (seller); POST is accepted too',
    description:
      'The seller has transferred the tickets: a pending XMobileLink (x_mobile_link required), XMobile (optional), XSeats or Eticket (no body, or `{}`) shipment becomes delivered and keeps its id; the order is completed. `tm_mobile_link` is the legacy name of x_mobile_link.',
    params: idParam('shipment'),
    headers: commandHeaders,
    body: jsonSchemaOf(completeBody),
    bodyOptional: true,
    response: { ...ok(bodies.completedShipment, 'the delivered shipment'), ...accepted202 },
    errors: [...COMMAND_ERRORS, 410],
  }),
  'GET /v9/inventory': v9({
    tag: 'Inventory',
    summary: "List an office's inventory",
    description:
      'Default mode: a bare array of {id, remote_id, event_id} ordered by remote_id from page[cursor]; next page: last remote_id + 1; paging needs state MAPPED or UNMAPPED. Detailed mode (`response=detailed`): `{"inventory":[…]}` of mapped records ordered by id; a page parameter is required; next page: last id + 1. office_id must be an office of your brokerage (401 otherwise).',
    querystring: {
      type: 'object',
      properties: {
        office_id: { type: 'integer', minimum: 1, description: 'office whose inventory is listed (required)' },
        state: {
          type: 'string',
          enum: ['ALL', 'MAPPED', 'UNMAPPED'],
          description: 'default ALL (MAPPED in detailed mode, the only value it takes)',
        },
        response: { type: 'string', enum: ['detailed'], description: 'detailed mode; absent for the default mode' },
        'page[cursor]': {
          type: 'integer',
          minimum: 0,
          description: 'first key of the page (remote_id, or id in detailed mode); default 1',
        },
        'page[items]': {
          type: 'integer',
          minimum: 1,
          maximum: 10000,
          description: 'records per page: up to 10000 (default), 1000 in detailed mode',
        },
      },
      required: ['office_id'],
    },
    response: ok(bodies.inventoryPage, 'a page of records'),
    errors: [400, ...V9_ERRORS],
  }),
  'GET /v9/commands/:id': v9({
    tag: 'Commands',
    summary: 'Status and result of a command',
    description:
      "Where a 202's Location points. Once finished, `response` holds exactly the status and body the synchronous call would have answered (an error included). Only the brokerage that sent it sees a command.",
    params: {
      type: 'object',
      properties: { id: { type: 'string', description: 'command id (x-command-id header of the call)' } },
      required: ['id'],
    },
    response: ok(bodies.commandStatus, 'the command'),
    errors: [...V9_ERRORS, 404],
  }),
  'GET /v9/credentials/current': v9({
    tag: 'Credentials',
    summary: 'Who am I: a signing self-test',
    description: 'Answers the calling credential (never its secret). A 200 proves the client signs GET requests correctly.',
    response: ok(bodies.currentCredential, 'the calling credential'),
    errors: V9_ERRORS,
  }),
  'POST /v9/credentials/current/verify': v9({
    tag: 'Credentials',
    summary: 'Body-signing self-test (POST or PUT)',
    description: 'Any JSON body: a 200 proves the client signs request bodies correctly.',
    body: { description: 'any JSON value' },
    bodyOptional: true,
    response: ok(bodies.verified, 'the signature is right'),
    errors: [400, ...V9_ERRORS, 413],
  }),
  'GET /': {
    tags: ['Service'],
    summary: 'The front door: service, version and where to go next',
    response: ok(bodies.frontDoor, 'links to the reference and the health checks'),
  },
  'GET /livez': { tags: ['Service'], summary: 'Liveness: the process serves', response: ok(bodies.live, 'alive') },
  'GET /readyz': {
    tags: ['Service'],
    summary: 'Readiness: Postgres and Redis answer',
    response: {
      ...ok(bodies.ready, 'ready'),
      503: { description: 'a dependency is down (the body says which)', ...jsonSchemaOf(bodies.ready, 'output') },
    },
  },
};

/** Multi-method routes share one route object, so one entry documents all their methods. */
export function routeDocKey(method: string | string[], url: string): string {
  return `${Array.isArray(method) ? method[0] : method} ${url}`;
}
