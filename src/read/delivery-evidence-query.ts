import { z } from 'zod';
import { queryInteger } from '../domain/query-params.ts';

export const EVIDENCE_DEFAULT_ITEMS = 100;
export const EVIDENCE_MAX_ITEMS = 500;

/** GET /v9/orders/:id/delivery_evidence: a page of the timeline, oldest first, then the next from its cursor (D-178). */
export const deliveryEvidenceQuery = z.strictObject({
  'page[items]': queryInteger('page[items]', 1, EVIDENCE_MAX_ITEMS)
    .optional()
    .describe(`Entries per page, 1 to ${EVIDENCE_MAX_ITEMS} (default ${EVIDENCE_DEFAULT_ITEMS}).`),
  'page[cursor]': z
    .string()
    .regex(/^-?[0-9]{1,16}\.[0-9]{1,9}$/, 'page[cursor]: not a cursor this list gave (pass next_cursor back unchanged)')
    .optional()
    .describe('The `next_cursor` of the previous page; absent: from the oldest entry.'),
});
export type DeliveryEvidenceQuery = z.output<typeof deliveryEvidenceQuery>;
