import { z } from 'zod';
import { SHIPMENT_STATES, TRACKING_STATUSES } from './shipment-types.ts';
import { id, instant, livemode, mailedShipment, mailedShipmentAnswer } from './shipment-answers.ts';

// The answers about mailed shipments (docs/API.md §Mailed tickets).

export { mailedShipment, mailedShipmentAnswer };

export const airbillAnswer = mailedShipment
  .extend({
    airbill: z.strictObject({
      url: z.string().describe('/v9/shipments/<id>/airbill: the label (application/pdf), for both parties'),
      sha256: z.string(),
      bytes: z.number().int().positive(),
      pages: z.number().int().positive(),
      source: z.enum(['purchased', 'uploaded']),
      uploaded_by: z.enum(['seller', 'buyer']),
    }),
    purchase: z
      .strictObject({
        provider: z.string(),
        service: z.string().describe('the service bought'),
        reason: z.string().describe('why this service: the cheapest to arrive before deliver_by, else the fastest'),
        rate: z.string().nullable(),
      })
      .nullable(),
    livemode,
  })
  .describe('the shipment with its label');

export const trackingEvent = z.strictObject({
  id,
  status: z.enum(TRACKING_STATUSES),
  occurred_at: instant,
  location: z.string().nullable(),
  description: z.string().nullable(),
  source: z.enum(['carrier', 'seller']),
  seller_claim: z
    .boolean()
    .describe("the seller's word on a shipment the carrier tracks (a bought label or a registered tracker): recorded, moves nothing"),
  held: z.boolean().describe("a carrier scan stored while the order's cancellation is proposed: its effect waits for the answer"),
  time_flag: z
    .enum(['out_of_range', 'future', 'before_shipment'])
    .nullable()
    .describe(
      "the carrier's time was not usable (outside 2000-2100, in the future, before the shipment existed): occurred_at is when it came",
    ),
  reported_time: z.string().nullable().describe('the time the carrier gave, as given, when time_flag is set'),
  revoked: z.boolean().describe('a scan of a lost envelope replaced by a reissue: its number is revoked, the scan completes nothing'),
  recorded_at: instant,
});

/** POST /v9/shipments/:id/tracking_events. */
export const trackingEventAnswer = mailedShipment.extend({
  tracking_event: trackingEvent,
  recorded: z.boolean(),
  confirm_receipt_by: instant
    .optional()
    .describe(
      "without a carrier account, a seller's delivered on a shipped envelope: until when the buyer may confirm receipt or open a delivery issue; unchallenged, the order then completes",
    ),
  livemode,
});

/** GET /v9/shipments/:id/tracking_events. */
export const trackingEventList = z.strictObject({
  shipment_id: id,
  tracking_number: z.string().nullable(),
  tracking_url: z.string().nullable().describe("the carrier's public tracking page"),
  tracking_events: z.array(trackingEvent).describe("this page, by the carrier's time"),
  next_cursor: z.string().nullable().describe('page[cursor] of the next page; null on the last page'),
  livemode: z.boolean().describe('false for a shipment of a test order (test mode)'),
});

/** What a carrier webhook answers (for the carrier only). */
export const carrierUpdateAnswer = z.strictObject({ recorded: z.number().int().nonnegative(), state: z.enum(SHIPMENT_STATES).nullable() });

/** What POST /carriers/easypost/events answers EasyPost. */
export const carrierWebhookAnswer = z.strictObject({
  taken: z.boolean(),
  shipment_id: id.nullable(),
  recorded: z.number().int().nonnegative().nullable().describe('scans stored by this call (null: still being recorded)'),
  reason: z.string().nullable().describe('why the event changed nothing'),
});
