import type { z } from 'zod';
import { acceptBody, completeBody, buyerPickupBody, mobileTransferBody, sellerPickupBody } from '@fulfil/contract';
import { inventoryQuery } from '../../inventory/index-query.ts';
import { eventsQuery } from '../../read/events-query.ts';
import { feedQuery } from '../../read/feed-query.ts';
import { errorResponses, type ErrorStatus } from './error-responses.ts';
import { EXAMPLES } from './examples.ts';
import { jsonSchemaOf, type JsonSchema } from './json-schema.ts';
import * as bodies from './response-bodies.ts';

// The documentation of every route, attached to it when it is registered (plugin.ts). Request
// schemas are the very zod parsers the routes validate with; the route handlers stay the only
// validators (docs/DECISIONS.md, "OpenAPI from the parsers").

export const SIGNED = [{ token: [], signature: [] }];

export const idParam = (what: string) => ({
  type: 'object',
  properties: { id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: `${what} id` } },
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

export const ok = (schema: z.ZodType, description: string) => ({ 200: { description, ...jsonSchemaOf(schema, 'output') } });

/** Errors every /v9 route can answer: authentication, rate limit, infrastructure. */
export const V9_ERRORS: ErrorStatus[] = [401, 429, 503];
const COMMAND_ERRORS: ErrorStatus[] = [400, ...V9_ERRORS, 403, 404, 409, 413, 422];

/** What a route's documentation says beyond its schemas (finish-document.ts writes it out). */
interface Extras {
  /** Request body examples by name; each is sent to the service by a test. */
  requestExamples?: Record<string, { summary: string; value: unknown }>;
  /** Response examples by status, then by name. */
  responseExamples?: Record<number, Record<string, { summary: string; value: unknown }>>;
  /** OpenAPI links by status: where the answer leads. */
  links?: Record<number, Record<string, object>>;
  /** A query whose parameters depend on each other, documented as one form-style object. */
  query?: { name: string; description: string; schema: JsonSchema };
}

function extras({ requestExamples, responseExamples, links, query }: Extras) {
  return {
    ...(requestExamples ? { 'x-request-examples': requestExamples } : {}),
    ...(responseExamples ? { 'x-response-examples': responseExamples } : {}),
    ...(links ? { 'x-links': links } : {}),
    ...(query ? { 'x-query': query } : {}),
  };
}

/** What the body check refuses whatever the schema: src/http/body.ts. */
const BODY_REFUSALS =
  'a `body` that is not UTF-8 JSON, is nested too deeply, or holds a `__proto__` key (or a `constructor` object with a `prototype`) at any depth (`field`: body)';

export function v9(
  doc: {
    tag: string;
    /** Derived from method and path when absent (finish-document.ts). */
    operationId?: string;
    summary: string;
    description: string;
    params?: JsonSchema;
    querystring?: JsonSchema;
    headers?: JsonSchema;
    body?: JsonSchema;
    bodyOptional?: boolean;
    response: Record<number, object>;
    errors: ErrorStatus[];
    /** More about this route's 400s than the common text (a rule only the database can check). */
    badRequest?: string;
  } & Extras,
) {
  const { tag, errors, response, bodyOptional, badRequest, requestExamples, responseExamples, links, query, ...rest } = doc;
  // Every body passes the same check before its schema (src/http/body.ts), so every operation
  // taking one may answer 400 for it, even one whose schema is "any JSON value".
  const statuses = [...new Set<ErrorStatus>(rest.body ? [400, ...errors] : errors)].sort((a, b) => a - b);
  const optional = bodyOptional ? { 'x-body-optional': true } : {};
  const failures = errorResponses(statuses);
  const reasons = [badRequest, rest.body ? BODY_REFUSALS : undefined].filter(Boolean);
  if (reasons.length && failures[400])
    failures[400] = { ...failures[400], description: [(failures[400] as { description: string }).description, ...reasons].join('; ') };
  return {
    tags: [tag],
    security: SIGNED,
    ...rest,
    ...optional,
    ...extras({ requestExamples, responseExamples, links, query }),
    response: { ...response, ...failures },
  };
}

/** An OpenAPI link to the operation taking `id` from the given runtime expression. */
const link = (operationId: string, id: string, description: string) => ({ operationId, parameters: { id }, description });

/** A command's 202 leads to its status. */
const toCommand = {
  202: {
    commandStatus: link('getCommand', '$response.body#/id', 'poll until `response` is set'),
  },
};

/** A shipment answer leads to reading, updating (the new id, rule U1) and completing it. */
const shipmentLinks = {
  readShipment: link('getShipment', '$response.body#/id', 'the shipment, by the id this answer gave'),
  updateShipment: link('updateShipment', '$response.body#/id', 'the next update uses this id'),
  completeShipment: link('completeShipment', '$response.body#/id', 'complete it (seller)'),
};

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
    operationId: 'acceptOrder',
    summary: 'Accept an order (seller)',
    description:
      'The order must be pending; it becomes accepted and gets one shipment by its delivery method: flash → XSeats (pending, with the recipient), local_pickup → LocalPickup, anything else → TBD.',
    params: idParam('order'),
    headers: commandHeaders,
    // What "Try it out" starts from: the demo data's reviewer (fixtures/demo.json, order 700); the
    // generated sample (reviewer 0, seat 0) is refused by any data.
    body: { ...jsonSchemaOf(acceptBody), examples: [{ reviewer_id: 100 }] },
    response: { ...ok(bodies.acceptedOrder, 'the accepted order with its shipment'), ...accepted202 },
    errors: COMMAND_ERRORS,
    badRequest: '`reviewer_id` that is not a user of your brokerage (`field`: reviewer_id)',
    requestExamples: {
      reviewer: { summary: 'accept, reviewed by user 100', value: EXAMPLES.accept },
      seats: { summary: 'accept naming the seats', value: { ...EXAMPLES.accept, seats: [1, 2] } },
    },
    responseExamples: { 200: { tbd: { summary: 'a TBD shipment awaits its delivery method', value: EXAMPLES.acceptedOrder } } },
    links: {
      200: {
        updateShipment: link('updateShipment', '$response.body#/shipments/0/id', 'say how the tickets are delivered'),
        readOrder: link('getOrder', '$request.path.id', 'the order'),
      },
      ...toCommand,
    },
  }),
  'GET /v9/orders/:id': v9({
    tag: 'Orders',
    operationId: 'getOrder',
    summary: 'Read an order (seller or buyer)',
    description: 'The order with its state and its live shipment, as both parties may see it. Read straight from the database.',
    params: idParam('order'),
    response: ok(bodies.readOrder, 'the order'),
    errors: [400, ...V9_ERRORS, 404],
    links: {
      200: {
        updateShipment: link(
          'updateShipment',
          '$response.body#/shipments/0/id',
          'the live shipment (the buyer of a local pickup finds it here)',
        ),
        events: link('listOrderEvents', '$request.path.id', "the order's shipment history"),
      },
    },
  }),
  'GET /v9/orders/:id/events': v9({
    tag: 'Orders',
    operationId: 'listOrderEvents',
    summary: "The order's shipment history (seller or buyer)",
    description:
      'Every shipment creation, replacement, pickup detail, delivery and completion of the order, in `seq` order. Page with `after_seq` (the last seq you have) and `limit`; `next_after_seq` is null on the last page.',
    params: idParam('order'),
    querystring: jsonSchemaOf(eventsQuery),
    response: ok(bodies.orderEvents, 'a page of events'),
    errors: [400, ...V9_ERRORS, 404],
  }),
  'GET /v9/events': v9({
    tag: 'Events',
    operationId: 'listEvents',
    summary: "Every event of your brokerage's orders (seller or buyer), oldest first",
    description:
      'The brokerage-wide feed: every shipment event of every order your brokerage is a party to, as event objects (the same objects webhooks deliver), oldest first, each order\'s events in seq order. Page with `after` (the `next_cursor` of the previous page; opaque) and `limit`. With `wait`, a request that finds nothing new waits up to that many seconds and answers as soon as an event arrives, or with an empty page and the same cursor. No event is ever skipped: an event appears after every event already listed (docs/WEBHOOKS.md, "Pulling instead: the event feed"). 503 with Retry-After when too many long polls are already waiting.',
    querystring: jsonSchemaOf(feedQuery),
    response: ok(bodies.eventFeedPage, 'a page of events'),
    errors: [400, ...V9_ERRORS],
    badRequest: '`after` that is not a `next_cursor` this feed gave (`field`: after)',
  }),
  'GET /v9/shipments/:id': v9({
    tag: 'Shipments',
    operationId: 'getShipment',
    summary: 'Read a shipment (seller or buyer)',
    description:
      'The live shipment with every field its responses showed, and its state. An id an update replaced answers 410 with `replaced_by`.',
    params: idParam('shipment'),
    response: ok(bodies.readShipment, 'the shipment'),
    errors: [400, ...V9_ERRORS, 404, 410],
  }),
  'PUT /v9/shipments/:id': v9({
    tag: 'Shipments',
    operationId: 'updateShipment',
    summary: 'Update a shipment: mobile transfer, seller or buyer local pickup',
    description:
      'Rule U1: every successful update replaces the shipment; the answer carries the NEW id, to be used from then on. The old id answers 410 with `replaced_by`. The body is exactly one of the three operations, told apart by its keys. When both parties have given local pickup details the shipment is delivered and the order completed.',
    params: idParam('shipment'),
    headers: commandHeaders,
    body: updateBody,
    response: { ...ok(bodies.updatedShipment, 'the replacing shipment'), ...accepted202 },
    errors: [...COMMAND_ERRORS, 410],
    requestExamples: {
      mobileLink: { summary: 'seller: the tickets go by mobile link', value: EXAMPLES.mobileLink },
      sellerPickup: { summary: 'seller: local pickup details', value: EXAMPLES.sellerPickup },
      buyerPickup: { summary: 'buyer: local pickup details', value: EXAMPLES.buyerPickup },
    },
    responseExamples: {
      200: { mobileLink: { summary: 'the replacing XMobileLink shipment (a new id)', value: EXAMPLES.mobileLinkShipment } },
    },
    links: { 200: shipmentLinks, ...toCommand },
  }),
  'PUT /v9/shipments/:id/complete': v9({
    tag: 'Shipments',
    operationId: 'completeShipment',
    summary: 'Complete a shipment (seller); POST is accepted too',
    description:
      'The seller has transferred the tickets: a pending XMobileLink (x_mobile_link required), XMobile (optional), XSeats or Eticket (no body, or `{}`) shipment becomes delivered and keeps its id; the order is completed. `tm_mobile_link` is the legacy name of x_mobile_link.',
    params: idParam('shipment'),
    headers: commandHeaders,
    body: jsonSchemaOf(completeBody),
    bodyOptional: true,
    response: { ...ok(bodies.completedShipment, 'the delivered shipment'), ...accepted202 },
    errors: [...COMMAND_ERRORS, 410],
    requestExamples: {
      link: { summary: 'XMobileLink: the link the buyer gets', value: EXAMPLES.complete },
      none: { summary: 'XMobile, XSeats or Eticket: nothing to add', value: {} },
    },
    responseExamples: { 200: { link: { summary: 'delivered, same id', value: EXAMPLES.completedShipment } } },
    links: { 200: { readShipment: shipmentLinks.readShipment }, ...toCommand },
  }),
  'GET /v9/inventory': v9({
    tag: 'Inventory',
    operationId: 'listInventory',
    summary: "List an office's inventory",
    description:
      'Default mode: a bare array of {id, remote_id, event_id} ordered by remote_id from page[cursor]; next page: last remote_id + 1; paging needs state MAPPED or UNMAPPED. Detailed mode (`response=detailed`): `{"inventory":[…]}` of mapped records ordered by id; a page parameter is required; next page: last id + 1. office_id must be an office of your brokerage (401 otherwise).',
    query: {
      name: 'query',
      description: 'the whole query, one `key=value` per property (office_id=10&state=MAPPED&page[items]=100): exactly one of three modes',
      schema: jsonSchemaOf(inventoryQuery),
    },
    response: ok(bodies.inventoryPage, 'a page of records'),
    errors: [400, ...V9_ERRORS],
  }),
  'GET /v9/commands/:id': v9({
    tag: 'Commands',
    operationId: 'getCommand',
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
    operationId: 'getCurrentCredential',
    summary: 'Who am I: a signing self-test',
    description: 'Answers the calling credential (never its secret). A 200 proves the client signs GET requests correctly.',
    response: ok(bodies.currentCredential, 'the calling credential'),
    errors: V9_ERRORS,
  }),
  'POST /v9/credentials/current/verify': v9({
    tag: 'Credentials',
    operationId: 'verifySigning',
    summary: 'Body-signing self-test (POST or PUT)',
    description: 'Any JSON body: a 200 proves the client signs request bodies correctly.',
    body: { description: 'any JSON value' },
    bodyOptional: true,
    response: ok(bodies.verified, 'the signature is right'),
    errors: [400, ...V9_ERRORS, 413],
  }),
  'GET /': {
    tags: ['Service'],
    operationId: 'getFrontDoor',
    summary: 'The front door: service, version and where to go next',
    description: 'No credential needed: the first request a newcomer tries says where the reference and the health checks are.',
    response: ok(bodies.frontDoor, 'links to the reference and the health checks'),
  },
  'GET /livez': {
    tags: ['Service'],
    operationId: 'getLiveness',
    summary: 'Liveness: the process serves',
    description: 'Answers as long as the process serves HTTP, whatever Postgres and Redis do: restart the process when it does not.',
    response: ok(bodies.live, 'alive'),
  },
  'GET /readyz': {
    tags: ['Service'],
    operationId: 'getReadiness',
    summary: 'Readiness: Postgres and Redis answer',
    description: 'Send traffic here only while it answers 200; the body says ok or down per dependency, never why (that is logged).',
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
