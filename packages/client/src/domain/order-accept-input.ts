import { z } from 'zod';
import { positiveId } from './validation.ts';

/** Body of POST /v9/orders/:id/accept (docs/API.md §Orders). */
export const acceptBody = z.strictObject({
  reviewer_id: positiveId,
  seats: z
    .array(positiveId)
    .min(1)
    .refine((s) => new Set(s).size === s.length, 'must not repeat a seat id')
    .optional(),
});

/** The order.accept command: the body plus the order id from the path. */
export const acceptCommand = acceptBody.extend({ order_id: positiveId });
export type AcceptCommand = z.output<typeof acceptCommand>;
