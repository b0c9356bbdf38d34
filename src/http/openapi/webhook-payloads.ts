import { z } from 'zod';
import { eventActor, eventTypeOf, EVENT_KINDS, type EventKind } from '@fulfil/contract';
import { jsonSchemaOf } from './json-schema.ts';

// What webhook endpoints are sent (the OpenAPI 3.1 `webhooks` section); the endpoint routes'
// own reference is src/http/routes/webhook-endpoints.docs.ts, docs/WEBHOOKS.md says the rest.

export const instant = z.string().describe('ISO 8601 UTC timestamp');

const eventObject = (kind: EventKind) =>
  z.strictObject({
    id: z.string().describe('the event id, also in the Fulfil-Event-Id header: de-duplicate by it'),
    type: z.literal(eventTypeOf(kind)),
    created_at: instant,
    order_id: z.number().int().positive(),
    seq: z.number().int().positive().describe("position in the order's history: per order and endpoint, events arrive in seq order"),
    livemode: z.boolean().describe('false for an event of a test order (test mode)'),
    test_clock: z.number().int().nullable().describe('the test clock the order lives at; null: the wall clock'),
    data: z.strictObject({
      event: z
        .looseObject({ event_id: z.string(), seq: z.number().int(), kind: z.literal(kind), actor: eventActor })
        .describe('as GET /v9/orders/:id/events lists it'),
      shipment: z
        .looseObject({ id: z.number().int() })
        .nullable()
        .describe('the shipment version the event left, as GET /v9/shipments/:id showed it then; never changed afterwards'),
    }),
  });
const ping = z.strictObject({
  id: z.string(),
  type: z.literal('ping'),
  created_at: instant,
  data: z.strictObject({ endpoint_id: z.number().int().positive() }),
});

const signedHeaders = [
  {
    name: 'Fulfil-Signature',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description: 't=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">[,v1=…]',
  },
  { name: 'Fulfil-Event-Id', in: 'header', required: true, schema: { type: 'string' }, description: 'the event id' },
  { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' }, description: 'Standard Webhooks: the event id' },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description: 'Standard Webhooks: unix seconds, signed',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description: 'Standard Webhooks: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">, one per secret, space-separated',
  },
];
// security []: the receiver authenticates the sender by the signature headers it verifies
// (verifyWebhook, or any Standard Webhooks verifier), not by a scheme of this document's.
const delivery = (operationId: string, summary: string, schema: z.ZodType) => ({
  post: {
    operationId,
    summary,
    security: [],
    description: 'POSTed to your endpoint; any 2xx acknowledges, anything else is retried (docs/WEBHOOKS.md).',
    parameters: signedHeaders,
    requestBody: { required: true, content: { 'application/json': { schema: jsonSchemaOf(schema, 'output') } } },
    responses: { '2XX': { description: 'acknowledged' } },
  },
});

/** The OpenAPI 3.1 `webhooks` section: one entry per event kind, and the ping. */
export const WEBHOOK_PAYLOADS: Record<string, object> = {
  ...Object.fromEntries(
    EVENT_KINDS.map((k) => [
      eventTypeOf(k),
      delivery(`receive${eventTypeOf(k).replace(/(^|[._])(\w)/g, (_m, _u, c: string) => c.toUpperCase())}`, eventTypeOf(k), eventObject(k)),
    ]),
  ),
  ping: delivery('receivePing', 'ping (on demand)', ping),
};
