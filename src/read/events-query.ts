import { z } from 'zod';

export const EVENTS_DEFAULT_LIMIT = 100;
export const EVENTS_MAX_LIMIT = 1000;

const digits = (max: number) =>
  z
    .string()
    .regex(new RegExp(`^\\d{1,${max}}$`), 'must be a non-negative integer')
    .transform(Number);

/**
 * Query of GET /v9/orders/:id/events. Values arrive as text; digits only, so "1e3" or " 7" are
 * refused rather than guessed at. A parameter given twice arrives as an array and is refused.
 */
export const eventsQuery = z.strictObject({
  after_seq: digits(9).optional().describe('Return events whose seq is greater than this (default 0: from the first).'),
  limit: digits(4)
    .refine((n) => n >= 1 && n <= EVENTS_MAX_LIMIT, `must be from 1 to ${EVENTS_MAX_LIMIT}`)
    .optional()
    .describe(`Events per page, 1 to ${EVENTS_MAX_LIMIT} (default ${EVENTS_DEFAULT_LIMIT}).`),
});
