import { z } from 'zod';
import { queryInteger } from '../domain/query-params.ts';

export const FEED_DEFAULT_LIMIT = 100;
export const FEED_MAX_LIMIT = 1000;
export const FEED_MAX_WAIT_SECONDS = 30;

const CURSOR_PREFIX = 'fe1:';

/** An opaque cursor: a feed position, versioned, so its form can change without breaking saved cursors. */
export function feedCursor(position: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${position}`).toString('base64url');
}

function cursorPosition(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^fe1:(0|[1-9]\d{0,15})$/.exec(text);
  const position = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(position) ? position : undefined;
}

/** Query of GET /v9/events; values arrive as text, and a parameter given twice arrives as an array and is refused. */
export const feedQuery = z.strictObject({
  after: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,40}$/, 'after: not a cursor this feed gave (pass next_cursor back unchanged)')
    .transform((cursor, ctx) => {
      const position = cursorPosition(cursor);
      if (position === undefined)
        ctx.addIssue({ code: 'custom', message: 'after: not a cursor this feed gave (pass next_cursor back unchanged)' });
      return position ?? 0;
    })
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
