import { z } from 'zod';
import { jsonSchemaOf } from './json-schema.ts';

/** Every code the service answers with, by its status (@fulfil/contract and src/http-errors.ts hold the classes). */
export const ERROR_STATUSES = {
  400: ['invalid_params', 'the body, query or path fails validation; the message and `field` name the culprit'],
  401: ['unauthorized', 'missing or invalid X-Token / X-Signature; for the inventory, an office not of your brokerage'],
  403: ['forbidden', "your role on this order may not do this (the buyer accepting, the seller giving the buyer's pickup details)"],
  404: ['not_found', 'unknown id, or an order/shipment/command your brokerage is no party to'],
  405: ['method_not_allowed', 'the path does not serve this method; the `Allow` header lists the ones it does'],
  408: [
    'request_timeout',
    'the request arrived too slowly (an upload: its body below the minimum rate); the connection is closed, nothing was taken',
  ],
  409: ['idempotency_conflict', 'this Idempotency-Key was already used with a different request'],
  410: ['shipment_replaced', 'the shipment id was replaced by an update; `replaced_by` is the live id'],
  413: ['payload_too_large', "body over the route's limit (64 KiB; 25 MiB on the upload routes), or a file over 10 MiB"],
  422: ['invalid_transition', 'the order or shipment is not in a state that allows this; the message says its state'],
  429: ['rate_limited', 'too many requests for this credential (or failed authentications from this address); see Retry-After'],
  502: [
    'carrier_error',
    'the carrier account (EasyPost) refused or did not answer while buying a label: the message says what it said; nothing changed',
  ],
  503: ['unavailable', 'Postgres or Redis is not answering, or the server is shutting down: nothing was taken, nothing changed'],
} as const;

export type ErrorStatus = keyof typeof ERROR_STATUSES;

/** Codes only one route answers with, and their status, beside the status's usual code; that route documents the answer (routeError). */
export const ROUTE_CODES = {
  limit_reached: 409,
  delivery_issue_open: 409,
  label_bought: 409,
  address_refused: 422,
  tracking_number_in_use: 409,
  test_clock_advancing: 409,
} as const;

const CODES = [...Object.values(ERROR_STATUSES).map(([code]) => code), ...(Object.keys(ROUTE_CODES) as (keyof typeof ROUTE_CODES)[])];

export const errorBody = z
  .strictObject({
    errors: z
      .array(
        z.strictObject({
          code: z.enum([...CODES, 'internal_error']),
          message: z.string(),
          field: z.string().optional().describe('400: the field, parameter or header at fault'),
          replaced_by: z.number().int().optional().describe('410: the id of the live shipment'),
          delivery_issue_id: z.number().int().optional().describe("409 delivery_issue_open: the order's issue still open"),
          test_clock_id: z.number().int().optional().describe('409 test_clock_advancing: the clock that is advancing'),
          detected_carrier: z
            .string()
            .nullable()
            .optional()
            .describe('400, a tracking number of another carrier: the carrier it looks like (null: none)'),
          carrier_code: z.string().optional().describe("502: the carrier account's own error code"),
        }),
      )
      .min(1),
  })
  .describe('every error, whatever the route');

/** The shared component every error response refers to. */
export const ERROR_BODY_ID = 'ErrorBody';
export const errorBodyComponent = { $id: ERROR_BODY_ID, ...jsonSchemaOf(errorBody, 'output') };

/**
 * One body per status as the service answers it: Swagger UI would otherwise make every example
 * from the shared schema (the first code of the enum, `invalid_params`, and an integer's minimum
 * as `replaced_by`).
 */
const ERROR_EXAMPLES: Record<ErrorStatus, { message: string; field?: string; replaced_by?: number }> = {
  400: { message: 'reviewer_id: is missing', field: 'reviewer_id' },
  401: { message: 'invalid credentials' },
  403: { message: 'only the seller may accept' },
  404: { message: 'no order 700' },
  408: { message: 'the request body arrived slower than 32768 bytes a second (40960 bytes in 5 s); nothing was taken' },
  409: { message: 'this Idempotency-Key was already used with a different request' },
  410: { message: 'shipment was replaced by shipment 12; use the new id', replaced_by: 12 },
  405: { message: 'DELETE is not allowed on /v9/inventory; allowed: GET, HEAD' },
  413: { message: 'request body is larger than 64 KiB, the limit of this route' },
  422: { message: 'order 700 is accepted; accept needs a pending order' },
  429: { message: 'rate limit exceeded; retry after 12 s' },
  502: { message: 'EasyPost refused to buy the label: Address not found; nothing changed' },
  503: { message: 'service temporarily unavailable; the request was not taken, nothing changed' },
};

export function errorResponses(statuses: readonly ErrorStatus[]): Record<number, object> {
  return Object.fromEntries(
    statuses.map((status) => {
      const [code, when] = ERROR_STATUSES[status];
      const headers = status === 429 ? { headers: { 'retry-after': { type: 'integer', description: 'seconds to wait' } } } : {};
      const example = { errors: [{ code, ...ERROR_EXAMPLES[status] }] };
      return [status, { description: `\`${code}\`: ${when}`, ...headers, allOf: [{ $ref: `${ERROR_BODY_ID}#` }], examples: [example] }];
    }),
  );
}

/** One route's own error answer: a code of ROUTE_CODES under its status, with an example. */
export function routeError(code: keyof typeof ROUTE_CODES, when: string, message: string): object {
  return { description: `\`${code}\`: ${when}`, allOf: [{ $ref: `${ERROR_BODY_ID}#` }], examples: [{ errors: [{ code, message }] }] };
}
