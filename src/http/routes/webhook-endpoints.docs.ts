import { z } from 'zod';
import { eventKind } from '@fulfil/contract';
import { WEBHOOK_DISABLED_REASONS, WEBHOOK_OUTCOMES } from '../../db/schema.ts';
import { createEndpointBody, deliveriesQuery, redeliverBody, rotateSecretBody, updateEndpointBody } from '../../webhooks/endpoint-input.ts';
import { routeError } from '../openapi/error-responses.ts';
import { jsonSchemaOf } from '../openapi/json-schema.ts';
import { idParam, ok, V9_ERRORS, v9 } from '../openapi/route-doc.ts';
import { instant } from '../openapi/webhook-payloads.ts';

// docs/WEBHOOKS.md says the rest.

const endpoint = z.strictObject({
  id: z.number().int().positive(),
  url: z.string(),
  event_kinds: z
    .array(eventKind)
    .describe('the kinds it receives; every kind there is when it receives every kind (created without event_kinds, or with ["*"])'),
  enabled: z.boolean(),
  disabled_reason: z
    .enum(WEBHOOK_DISABLED_REASONS)
    .nullable()
    .describe('manual (PATCH), gone (the receiver answered 410), failing (the retry window ran out)'),
  disabled_at: instant.nullable(),
  failing_since: instant.nullable().describe('start of the current run of failed attempts'),
  previous_secret_expires_at: instant.nullable().describe('until then the secret before the last rotation signs too'),
  created_at: instant,
  updated_at: instant,
  livemode: z
    .boolean()
    .describe('false for an endpoint registered with a test credential: it belongs to the sandbox brokerage and receives only test events'),
});
const withSecret = endpoint.extend({ secret: z.string().describe('the signing secret (whsec_…): shown only in this answer') });
const attempts = z.strictObject({
  attempts: z.array(
    z.strictObject({
      id: z.number().int().positive(),
      at: instant,
      event_id: z.string().nullable(),
      order_id: z.number().int().nullable(),
      attempt: z.number().int().describe('the attempt number of that event (0 for a disabling entry)'),
      outcome: z.enum(WEBHOOK_OUTCOMES),
      status_code: z.number().int().nullable(),
      error: z.string().nullable(),
      latency_ms: z.number().int().nullable(),
    }),
  ),
  next_before_id: z.number().int().nullable().describe('pass as before_id for the next (older) page; null on the last'),
});

const base = { tag: 'Webhooks' };
const own = [400, ...V9_ERRORS, 404] as const;

/** What only the service can check of a URL: where its host resolves (docs/WEBHOOKS.md §SSRF rules). */
const URL_REFUSALS =
  '`url` whose host does not resolve, or resolves to a loopback, private, link-local or reserved address, or a non-https `url` outside development (`field`: url)';

/** A kind named by its kind and by its type is two distinct items to a schema, one kind to the service (D-132). */
const KIND_TWICE = '`event_kinds` naming one kind twice, once by its kind and once by its type (the kind under `shipment.` or `order.`)';

/** The reference of webhook-endpoints.ts. */
export const WEBHOOK_ENDPOINT_DOCS = {
  create: v9({
    ...base,
    operationId: 'createWebhookEndpoint',
    summary: 'Create a webhook endpoint; its secret is shown once',
    description:
      "Every shipment event of the brokerage's orders (as seller or buyer) of the given kinds is POSTed to the URL, signed (Fulfil-Signature), in seq order per order, until a 2xx. The URL must be https and must not resolve to a loopback, private, link-local or reserved address (docs/WEBHOOKS.md §SSRF rules).",
    body: jsonSchemaOf(createEndpointBody),
    badRequest: `${URL_REFUSALS}; ${KIND_TWICE}`,
    response: {
      201: { description: 'the endpoint and its secret', ...jsonSchemaOf(withSecret, 'output') },
      409: routeError(
        'limit_reached',
        'the brokerage already has as many endpoints as it may (WEBHOOK_MAX_ENDPOINTS_PER_BROKERAGE, default 20); nothing stored',
        'this brokerage has 20 webhook endpoints, the most it may have; delete one first',
      ),
    },
    errors: [400, ...V9_ERRORS, 413],
  }),
  list: v9({
    ...base,
    operationId: 'listWebhookEndpoints',
    summary: "The brokerage's webhook endpoints",
    description: 'Never their secrets.',
    response: ok(z.strictObject({ webhook_endpoints: z.array(endpoint) }), 'the endpoints'),
    errors: V9_ERRORS,
  }),
  read: v9({
    ...base,
    operationId: 'getWebhookEndpoint',
    summary: 'Read a webhook endpoint',
    description: "Another brokerage's endpoint answers 404.",
    params: idParam('webhook endpoint'),
    response: ok(endpoint, 'the endpoint'),
    errors: [...own],
  }),
  update: v9({
    ...base,
    operationId: 'updateWebhookEndpoint',
    summary: 'Change url, event kinds or enabled (PUT is accepted too)',
    description: '`enabled: true` on a disabled endpoint resumes delivery from the first undelivered event of each order.',
    params: idParam('webhook endpoint'),
    body: jsonSchemaOf(updateEndpointBody),
    badRequest: `${URL_REFUSALS}; ${KIND_TWICE}`,
    response: ok(endpoint, 'the endpoint'),
    errors: [...own, 413],
  }),
  remove: v9({
    ...base,
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    description: 'What it was still owed and its deliveries log go with it.',
    params: idParam('webhook endpoint'),
    response: { 204: { description: 'deleted' } },
    errors: [...own],
  }),
  rotateSecret: v9({
    ...base,
    operationId: 'rotateWebhookEndpointSecret',
    summary: 'Rotate the signing secret',
    description: 'Returns the new secret once; the previous one keeps signing beside it (a second v1) for grace_seconds.',
    params: idParam('webhook endpoint'),
    body: jsonSchemaOf(rotateSecretBody),
    bodyOptional: true,
    response: ok(withSecret, 'the endpoint and its new secret'),
    errors: [...own, 413],
  }),
  deliveries: v9({
    ...base,
    operationId: 'listWebhookDeliveries',
    summary: 'The deliveries log: every attempt, newest first',
    description: 'Time, event, order, attempt number, outcome, status code or error, latency. Disablings appear as outcome `disabled`.',
    params: idParam('webhook endpoint'),
    querystring: jsonSchemaOf(deliveriesQuery),
    response: ok(attempts, 'a page of attempts'),
    errors: [...own],
  }),
  redeliver: v9({
    ...base,
    operationId: 'redeliverWebhookEvents',
    summary: 'Redeliver one event, replay an order, or everything since a time',
    description: 'The events become due now and go out with their original ids, in seq order per order.',
    params: idParam('webhook endpoint'),
    body: jsonSchemaOf(redeliverBody),
    response: { 202: { description: 'queued', ...jsonSchemaOf(z.strictObject({ queued: z.number().int() }), 'output') } },
    errors: [...own, 413],
  }),
  ping: v9({
    ...base,
    operationId: 'pingWebhookEndpoint',
    summary: 'Send a ping test event now',
    description: 'A signed `{"id","type":"ping","created_at","data":{"endpoint_id"}}`, logged like any delivery.',
    params: idParam('webhook endpoint'),
    body: { description: 'none, or any JSON value (ignored)' },
    bodyOptional: true,
    response: { 202: { description: 'queued', ...jsonSchemaOf(z.strictObject({ event_id: z.string() }), 'output') } },
    errors: [...own],
  }),
};
