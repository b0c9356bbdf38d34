import { z } from 'zod';
import { queryInteger } from '../domain/query-params.ts';

export const FEED_DEFAULT_LIMIT = 100;
export const FEED_MAX_LIMIT = 1000;
export const FEED_MAX_WAIT_SECONDS = 30;

/** Query of GET /v9/events; values arrive as text, and a parameter given twice arrives as an array and is refused. */
export const feedQuery = z.strictObject({
  after: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,40}$/, 'after: not a cursor this feed gave (pass next_cursor back unchanged)')
    .optional()
    .describe('The `next_cursor` of the previous page; absent: from the first event.'),
  limit: queryInteger('limit', 1, FEED_MAX_LIMIT)
    .optional()
    .describe(`Events per page, 1 to ${FEED_MAX_LIMIT} (default ${FEED_DEFAULT_LIMIT}).`),
  wait: queryInteger('wait', 0, FEED_MAX_WAIT_SECONDS)
    .optional()
    .describe(
      `Long poll: when there is nothing after the cursor, wait up to this many seconds (0 to ${FEED_MAX_WAIT_SECONDS}, default 0) and answer as soon as an event arrives.`,
    ),
});
