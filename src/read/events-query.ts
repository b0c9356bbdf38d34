import { z } from 'zod';
import { queryInteger } from '../domain/query-params.ts';

export const EVENTS_DEFAULT_LIMIT = 100;
export const EVENTS_MAX_LIMIT = 1000;
/** seq is a Postgres integer; nine digits keep any given value within it. */
const MAX_SEQ = 999_999_999;

/** Query of GET /v9/orders/:id/events: the route checks it with this schema, the document shows it. */
export const eventsQuery = z.strictObject({
  after_seq: queryInteger('after_seq', 0, MAX_SEQ)
    .optional()
    .describe('Return events whose seq is greater than this (default 0: from the first).'),
  limit: queryInteger('limit', 1, EVENTS_MAX_LIMIT)
    .optional()
    .describe(`Events per page, 1 to ${EVENTS_MAX_LIMIT} (default ${EVENTS_DEFAULT_LIMIT}).`),
});
