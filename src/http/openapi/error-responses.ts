import { z } from 'zod';
import { jsonSchemaOf } from './json-schema.ts';

/** Every code the service answers with, by its status (src/errors.ts holds the classes). */
export const ERROR_STATUSES = {
  400: ['invalid_params', 'the body, query or path fails validation; the message and `field` name the culprit'],
  401: ['unauthorized', 'missing or invalid X-Token / X-Signature; for the inventory, an office not of your brokerage'],
  403: ['forbidden', "your role on this order may not do this (the buyer accepting, the seller giving the buyer's pickup details)"],
  404: ['not_found', 'unknown id, or an order/shipment/command your brokerage is no party to'],
  409: ['idempotency_conflict', 'this Idempotency-Key was already used with a different request'],
  410: ['shipment_replaced', 'the shipment id was replaced by an update; `replaced_by` is the live id'],
  413: ['payload_too_large', 'body over 64 KiB'],
  422: ['invalid_transition', 'the order or shipment is not in a state that allows this; the message says its state'],
  429: ['rate_limited', 'too many requests for this credential (or failed authentications from this address); see Retry-After'],
  503: ['unavailable', 'Postgres or Redis is not answering, or the server is shutting down: nothing was taken, nothing changed'],
} as const;

export type ErrorStatus = keyof typeof ERROR_STATUSES;

const CODES = Object.values(ERROR_STATUSES).map(([code]) => code);

export const errorBody = z
  .strictObject({
    errors: z
      .array(
        z.strictObject({
          code: z.enum([...CODES, 'internal_error']),
          message: z.string(),
          field: z.string().optional().describe('400: the field, parameter or header at fault'),
          replaced_by: z.number().int().optional().describe('410: the id of the live shipment'),
        }),
      )
      .min(1),
  })
  .describe('every error, whatever the route');

/** The shared component every error response refers to. */
export const ERROR_BODY_ID = 'ErrorBody';
export const errorBodyComponent = { $id: ERROR_BODY_ID, ...jsonSchemaOf(errorBody, 'output') };

export function errorResponses(statuses: readonly ErrorStatus[]): Record<number, object> {
  return Object.fromEntries(
    statuses.map((status) => {
      const [code, when] = ERROR_STATUSES[status];
      const headers = status === 429 ? { headers: { 'retry-after': { type: 'integer', description: 'seconds to wait' } } } : {};
      return [status, { description: `\`${code}\`: ${when}`, ...headers, $ref: `${ERROR_BODY_ID}#` }];
    }),
  );
}
