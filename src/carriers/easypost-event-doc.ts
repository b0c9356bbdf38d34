import { z } from 'zod';

// The part of an EasyPost webhook event the service reads (readTrackerEvent, easypost-adapter.ts),
// for the document only: the route verifies the signature over the raw bytes and reads the event
// itself, and EasyPost sends more fields than these (kept, and ignored).

const EASYPOST_STATUSES = [
  'unknown',
  'pre_transit',
  'in_transit',
  'out_for_delivery',
  'delivered',
  'available_for_pickup',
  'return_to_sender',
  'failure',
  'cancelled',
  'error',
] as const;

const trackingDetail = z
  .looseObject({
    status: z
      .string()
      .describe(
        `EasyPost's status (${EASYPOST_STATUSES.join(', ')}): in_transit, out_for_delivery, delivered are taken as they are; available_for_pickup, failure, error as exception; return_to_sender as returned; any other is skipped`,
      ),
    datetime: z.string().describe('when the scan happened, ISO 8601; a scan without one is skipped'),
    message: z.string().nullable().optional().describe("the carrier's words, stored as the scan's description (500 characters)"),
    description: z.string().nullable().optional(),
    tracking_location: z
      .looseObject({
        city: z.string().nullable().optional(),
        state: z.string().nullable().optional(),
        zip: z.string().nullable().optional(),
        country: z.string().nullable().optional(),
      })
      .nullable()
      .optional()
      .describe('joined as the scan\'s location, "city, state, zip, country"'),
  })
  .describe('one scan');

/** An EasyPost `tracker.updated` (or `tracker.created`) event, as its webhook posts it. */
export const easypostEvent = z
  .looseObject({
    id: z.string().describe("the event's id (evt_…): an event is taken once by it, a retry changes nothing"),
    description: z.string().describe('tracker.updated or tracker.created; any other event is answered 200 and ignored'),
    result: z
      .looseObject({
        id: z.string().optional().describe("the tracker's id (trk_…)"),
        tracking_code: z.string().describe("matched to a mailed shipment's tracking number (spaces dropped, upper case)"),
        status: z.string().optional().describe("the tracker's latest status (the scans are what counts)"),
        carrier: z.string().optional(),
        est_delivery_date: z.string().nullable().optional().describe("becomes the shipment's estimated_delivery_at"),
        tracking_details: z.array(trackingDetail).describe('every scan so far, each stored once'),
      })
      .describe('the tracker'),
  })
  .describe("EasyPost's Event object; only the fields listed are read");

/** A carrier-side example: the envelope of UPS 1Z5R89390357567127 left a facility. */
export const EASYPOST_EVENT_EXAMPLE: z.input<typeof easypostEvent> = {
  id: 'evt_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
  object: 'Event',
  mode: 'test',
  description: 'tracker.updated',
  created_at: '2026-11-21T02:15:00Z',
  result: {
    id: 'trk_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
    object: 'Tracker',
    mode: 'test',
    tracking_code: '1Z5R89390357567127',
    status: 'in_transit',
    carrier: 'UPS',
    est_delivery_date: '2026-11-22T18:00:00Z',
    tracking_details: [
      {
        object: 'TrackingDetail',
        message: 'Departed from facility',
        status: 'in_transit',
        datetime: '2026-11-21T02:10:00Z',
        tracking_location: { object: 'TrackingLocation', city: 'NEW YORK', state: 'NY', country: 'US', zip: '10004' },
      },
    ],
  },
};
