import { z } from 'zod';
import { queryInteger } from '../domain/query-params.ts';

export const TRACKING_EVENTS_DEFAULT_ITEMS = 100;
export const TRACKING_EVENTS_MAX_ITEMS = 500;

/** GET /v9/shipments/:id/tracking_events: a page of scans, by the carrier's time, then the next from its cursor. */
export const trackingEventsQuery = z.strictObject({
  'page[items]': queryInteger('page[items]', 1, TRACKING_EVENTS_MAX_ITEMS)
    .optional()
    .describe(`Scans per page, 1 to ${TRACKING_EVENTS_MAX_ITEMS} (default ${TRACKING_EVENTS_DEFAULT_ITEMS}).`),
  'page[cursor]': z
    .string()
    .regex(/^[0-9]{1,20}\.[0-9]{1,20}$/, 'page[cursor]: not a cursor this list gave (pass next_cursor back unchanged)')
    .optional()
    .describe('The `next_cursor` of the previous page; absent: from the oldest scan.'),
});
export type TrackingEventsQuery = z.output<typeof trackingEventsQuery>;
