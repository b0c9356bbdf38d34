import { z } from 'zod';
import { queryInteger } from '../domain/query-params.ts';
import { uniqueArray } from '@fulfil/contract';
import type { ShipmentEventKind } from '../events/shipment-event.ts';

/** Every ShipmentEventKind; an endpoint subscribes to some or (by default) all of them. */
export const WEBHOOK_EVENT_KINDS = [
  'created',
  'updated',
  'pickup_details',
  'delivered',
  'completed',
] as const satisfies readonly ShipmentEventKind[];

// http(s), a host, then no whitespace, no fragment and nothing Postgres cannot store; a user name
// or password is refused too (the host part excludes '@'). The service then resolves the host.
const FREE = String.raw`\s\u0000\uD800-\uDFFF`;
const WEBHOOK_URL = new RegExp(String.raw`^[Hh][Tt][Tt][Pp][Ss]?://[^${FREE}/?#@]+(?:[/?][^${FREE}#]*)?$`, 'u');
const url = z
  .string()
  .min(1)
  .max(2048)
  .regex(WEBHOOK_URL, 'must be an http(s) URL without user name or fragment')
  .describe('Where events are POSTed: https:// (http:// only where WEBHOOK_ALLOW_PRIVATE=true).');
const eventKinds = uniqueArray(z.enum(WEBHOOK_EVENT_KINDS), 'must not repeat a kind')
  .min(1)
  .max(WEBHOOK_EVENT_KINDS.length)
  .describe('Shipment event kinds to receive (default: all of them).');

export const createEndpointBody = z.strictObject({
  url,
  event_kinds: eventKinds.optional(),
  enabled: z.boolean().optional().describe('Default true.'),
});

export const updateEndpointBody = z
  .strictObject({
    url: url.optional(),
    event_kinds: eventKinds.optional(),
    enabled: z.boolean().optional().describe('true re-enables a disabled endpoint: it resumes from its first undelivered event.'),
  })
  .refine((b) => Object.keys(b).length > 0, 'give at least one of url, event_kinds, enabled')
  .meta({ minProperties: 1 });

export const MAX_GRACE_SECONDS = 7 * 24 * 3600;
export const rotateSecretBody = z.strictObject({
  grace_seconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_GRACE_SECONDS)
    .optional()
    .describe('How long the previous secret keeps signing beside the new one (default 86400, at most 7 days).'),
});

/** Redeliver one event, replay an order, or replay everything since a time: exactly one of them. */
export const redeliverBody = z
  .strictObject({
    event_id: z.string().min(1).max(100).optional(),
    order_id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
    since: z.iso.datetime({ offset: true }).optional().describe('Every event of the endpoint committed at or after this time.'),
  })
  .refine((b) => Object.keys(b).length === 1, 'give exactly one of event_id, order_id, since')
  .meta({ minProperties: 1, maxProperties: 1 });

export const deliveriesQuery = z.strictObject({
  limit: queryInteger('limit', 1, 500).optional(),
  before_id: queryInteger('before_id', 1, Number.MAX_SAFE_INTEGER).optional().describe('Attempts older than this id (the next page).'),
  order_id: queryInteger('order_id', 1, Number.MAX_SAFE_INTEGER).optional(),
});
