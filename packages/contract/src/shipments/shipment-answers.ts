import { z } from 'zod';
import { MAILED_TYPES, ORDER_STATES, SHIPMENT_STATES, SHIPMENT_TYPES } from './shipment-types.ts';
import { REJECTION_REASONS } from '../payloads/order-commands.ts';

// What a shipment command answers (accept, update, complete): the HTTP call's 200 body, and an
// awaited producer command's. The service's renderers build these bodies (src/domain/
// shipment-response.ts) and its contract test checks real answers against these schemas; the
// objects are strict, so a key added to a renderer but not here fails that test.

export const id = z.number().int().positive();
export const instant = z.string().describe('ISO 8601 UTC timestamp, e.g. 2026-11-21T09:00:00.000Z');
export const shipmentType = z.enum(SHIPMENT_TYPES);
export const shipmentState = z.enum(SHIPMENT_STATES);
export const url = z.string().describe('relative path of the shipment: /shipments/<id>');

/**
 * An answer's own mode: its order's, false for a test order (test mode). On the object an answer is
 * about, never on the objects nested in it (an order's shipments, an event's shipment).
 */
export const livemode = z.boolean().describe("false for an object of a test order (test mode): its order's mode");

export const emailAddress = z.strictObject({ id, url: z.null(), address: z.string(), label: z.string().nullable(), updated_at: instant });

export const phoneNumber = z.strictObject({
  id,
  url: z.string(),
  label: z.string().nullable(),
  country_code: z.string(),
  number: z.string(),
  extension: z.string().nullable(),
  updated_at: instant,
});

export const buyerPhoneNumber = z.strictObject({
  label: z.string().nullable(),
  country_code: z.string(),
  number: z.string(),
  extension: z.string().nullable(),
});

export const address = z.strictObject({
  id,
  label: z.string().nullable(),
  name: z.string(),
  street_address: z.string(),
  extended_address: z.string().nullable(),
  locality: z.string(),
  region: z.string(),
  postal_code: z.string(),
  country_code: z.string(),
});

export const recipient = {
  ship_to_name: z.string().nullable().optional().describe('XMobile and XSeats: the recipient the seller transfers to'),
  email_address: emailAddress.nullable().optional().describe('XMobile and XSeats: where the seller transfers to'),
};

export const acceptedShipment = z
  .strictObject({ id, url, type: shipmentType, state: shipmentState.optional(), ...recipient })
  .describe('id, url and type; an XSeats shipment also state, ship_to_name and email_address');

export const acceptedOrder = z.strictObject({
  id,
  oid: z.string().describe('order identifier: two numbers joined by a hyphen'),
  state: z.enum(['pending', 'accepted', 'completed']),
  shipments: z.array(acceptedShipment),
  livemode,
});

export const mobileTransferShipment = z
  .strictObject({ id, url, type: shipmentType, state: shipmentState, ...recipient })
  .describe('seller mobile transfer or e-ticket: the replacing shipment');

export const sellerPickupShipment = z
  .strictObject({
    id,
    url,
    type: z.literal('LocalPickup'),
    ship_from_name: z.string().nullable(),
    ship_from_address: address.nullable(),
    ship_from_phone_number: phoneNumber.nullable(),
    pickup_time_range: z.string().nullable(),
    pickup_instructions: z.string().nullable(),
  })
  .describe("seller local pickup: the replacing shipment with the seller's details");

export const buyerPickupShipment = z
  .strictObject({
    id,
    url,
    type: z.literal('LocalPickup'),
    ship_to_name: z.string().nullable(),
    phone_number: buyerPhoneNumber.nullable(),
    notes: z.string().nullable(),
  })
  .describe("buyer local pickup: the replacing shipment with the buyer's details");

/** A mailed shipment (docs/API.md §Mailed tickets): where it goes, how, and its tracking. */
export const mailedShipment = z
  .strictObject({
    id,
    url,
    type: z.enum(MAILED_TYPES),
    state: z.enum(SHIPMENT_STATES),
    service_type: z.string().nullable().describe("the carrier's service, as chosen or as bought"),
    ship_to_name: z.string().nullable(),
    ship_to_address: address.nullable(),
    tracking_number: z.string().nullable(),
    estimated_delivery_at: instant.nullable().describe("the carrier's latest estimate, when it gave one"),
  })
  .describe('a mailed shipment (FedEx, UPS, USPS, ProvidedAirbill): where it goes, how, and its tracking');

/** PUT /v9/shipments/:id/tracking (and a mailed shipment's update or shipping): the shipment with its mode. */
export const mailedShipmentAnswer = mailedShipment.extend({ livemode });

export const updatedShipment = z.union([
  mobileTransferShipment.extend({ livemode }),
  sellerPickupShipment.extend({ livemode }),
  buyerPickupShipment.extend({ livemode }),
  mailedShipmentAnswer,
]);

export const deliveredShipment = z.strictObject({
  id,
  url,
  type: shipmentType,
  state: z.literal('delivered'),
  x_mobile_link: z.string().optional().describe('present when the completion carried one'),
  tickets: z
    .array(
      z.strictObject({
        seat: z.string(),
        barcode: z.string().optional(),
        primary_ticket_id: z.string().optional(),
        verification_id: z.string().optional(),
      }),
    )
    .optional()
    .describe('present when the completion carried them (barcode completion)'),
});

/** The answer of complete: delivered; a mailed shipment shipped (in_transit) instead. */
export const completedShipment = z.union([deliveredShipment.extend({ livemode }), mailedShipmentAnswer]);

/** What every answer about an order says of it beyond its id: its state, deadline and how it ended. */
export const orderFacts = {
  state: z.enum(ORDER_STATES),
  in_hand_on: z.string().nullable().describe("YYYY-MM-DD: the day the tickets are due in the buyer's hands; null for an order without one"),
  deliver_by: instant.nullable().describe('the deadline: when the tickets must be delivered (docs/LIFECYCLE.md, Deadlines)'),
  cancel_proposed_by: z.enum(['seller', 'buyer']).nullable().describe('cancel_proposed: the party whose cancellation awaits the other'),
  rejection_reason: z.enum(REJECTION_REASONS).nullable().describe('rejected: why'),
  rejection_notes: z.string().nullable().describe("rejected: the seller's notes"),
  livemode: z.boolean().describe('false for a test order (test mode); every object of the order answers the same'),
  test_clock: id.nullable().describe('the test clock the order lives at; null: the wall clock (always null for a live order)'),
};

/** The answer of reject, cancel, withdrawing a cancellation and PUT /v9/orders/:id. */
export const orderAnswer = z.strictObject({
  id,
  oid: z.string().describe('order identifier: two numbers joined by a hyphen'),
  ...orderFacts,
});
