import { z } from 'zod';
import { positiveId, uniqueArray } from './validation.ts';

/** Body of POST /v9/orders/:id/accept (docs/API.md §Orders). */
export const acceptBody = z.strictObject({
  reviewer_id: positiveId.describe('a user of your brokerage (400 otherwise): who reviewed the order'),
  seats: uniqueArray(positiveId, 'must not repeat a seat id').min(1).optional().describe('seat ids, each at most once'),
});

/** The order.accept command: the body plus the order id from the path. */
export const acceptCommand = acceptBody.extend({ order_id: positiveId });
export type AcceptCommand = z.output<typeof acceptCommand>;
