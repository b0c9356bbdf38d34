import { z } from 'zod';
import { queryInteger } from '../domain/query-params.ts';
import { acceptedEnum, BESIDE_FIELD_RULES, EVENT_KINDS, eventTypeOf, uniqueArray, type EventKind, type EventType } from '@fulfil/contract';

/** `event_kinds: ["*"]`: every kind, those added later included (as when event_kinds is left out). */
export const EVERY_EVENT_KIND = '*';

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
// '*' alone, or kinds: one array of items so that a wrong item is named by its index; the anyOf
// tells the document's readers what the refinement checks.
// A kind's public type (`shipment.created`, as events and webhooks name it) is accepted for the
// kind (D-132): one enum, the document's, of kinds, "*" and types.
const eventKindItem = acceptedEnum<EventKind | typeof EVERY_EVENT_KIND, EventType>(
  'event_kinds',
  [EVENT_KINDS[0], ...EVENT_KINDS.slice(1), EVERY_EVENT_KIND],
  Object.fromEntries(EVENT_KINDS.map((k) => [eventTypeOf(k), k])) as Record<EventType, EventKind>,
);
const eventKinds = uniqueArray(eventKindItem, 'must not repeat a kind')
  .min(1)
  .max(EVENT_KINDS.length)
  .refine((kinds) => kinds.length === 1 || !kinds.includes(EVERY_EVENT_KIND), `"${EVERY_EVENT_KIND}" (every kind) stands alone`)
  .meta({ anyOf: [{ maxItems: 1 }, { items: { not: { const: EVERY_EVENT_KIND } } }] })
  .describe(
    'Event kinds to receive, each by its kind (`created`) or its type (`shipment.created`). Left out (on create), ["*"], or a list naming every kind: every kind, those added later included.',
  );

/**
 * What an endpoint stores: null for every kind (so a kind added later reaches it), else the kinds.
 * A list naming every kind counts as every kind, as endpoints stored before "every kind" had a
 * value of its own do, so an answer's list sent back unchanged keeps the endpoint as it was.
 */
export function storedEventKinds(kinds: readonly (EventKind | typeof EVERY_EVENT_KIND)[] | undefined): EventKind[] | null {
  if (kinds === undefined || kinds.includes(EVERY_EVENT_KIND)) return null;
  const named = kinds.filter((k): k is EventKind => k !== EVERY_EVENT_KIND);
  return EVENT_KINDS.every((k) => named.includes(k)) ? null : named;
}

/** The kinds an endpoint answers with: every current kind for an endpoint that receives them all. */
export function answeredEventKinds(stored: readonly string[] | null): string[] {
  return stored === null ? [...EVENT_KINDS] : [...stored];
}

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
  .refine((b) => Object.keys(b).length > 0, { message: 'give at least one of url, event_kinds, enabled', ...BESIDE_FIELD_RULES })
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
  .refine((b) => Object.keys(b).length === 1, { message: 'give exactly one of event_id, order_id, since', ...BESIDE_FIELD_RULES })
  .meta({ minProperties: 1, maxProperties: 1 });

export const deliveriesQuery = z.strictObject({
  limit: queryInteger('limit', 1, 500).optional(),
  before_id: queryInteger('before_id', 1, Number.MAX_SAFE_INTEGER).optional().describe('Attempts older than this id (the next page).'),
  order_id: queryInteger('order_id', 1, Number.MAX_SAFE_INTEGER).optional(),
});
