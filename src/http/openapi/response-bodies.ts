import { z } from 'zod';
import { SHIPMENT_TYPES } from '../../../machines/index.ts';

// What each route answers, as documentation: the renderers in src/domain/shipment-response.ts
// and src/read/ build these bodies, and the contract test checks real answers against them.
// Objects are strict, so a key added to a renderer but not here fails that test.

const id = z.number().int().positive();
const instant = z.string().describe('ISO 8601 UTC timestamp, e.g. 2026-11-21T09:00:00.000Z');
const shipmentType = z.enum(SHIPMENT_TYPES);
const shipmentState = z.enum(['pending', 'delivered']);
const url = z.string().describe('relative path of the shipment: /shipments/<id>');

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

const recipient = {
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

export const updatedShipment = z.union([mobileTransferShipment, sellerPickupShipment, buyerPickupShipment]);

export const completedShipment = z.strictObject({
  id,
  url,
  type: shipmentType,
  state: z.literal('delivered'),
  x_mobile_link: z.string().optional().describe('present when the completion carried one'),
});

export const readShipment = z.union([
  z
    .strictObject({
      id,
      url,
      type: shipmentType.exclude(['LocalPickup']),
      state: shipmentState,
      ...recipient,
      x_mobile_link: z.string().optional(),
    })
    .describe('TBD, XMobile, XMobileLink, XSeats, Eticket'),
  z
    .strictObject({
      id,
      url,
      type: z.literal('LocalPickup'),
      state: shipmentState,
      ...sellerPickupShipment.omit({ id: true, url: true, type: true }).shape,
      ...buyerPickupShipment.omit({ id: true, url: true, type: true }).shape,
    })
    .describe("LocalPickup: both parties' details, null until given"),
]);

export const readOrder = acceptedOrder.extend({
  shipments: z.array(readShipment).max(1).describe('the live shipment; empty before the order is accepted'),
});

export const orderEvent = z.strictObject({
  event_id: z.string(),
  seq: z.number().int().positive().describe('per order, across shipment replacements'),
  kind: z.enum(['created', 'updated', 'pickup_details', 'delivered', 'completed']),
  shipment_id: id.nullable().describe('the shipment acted on; null for created'),
  new_shipment_id: id.describe('the shipment after the event (a replacement for updates)'),
  from_type: shipmentType.nullable(),
  from_state: shipmentState.nullable(),
  to_type: shipmentType,
  to_state: shipmentState,
  actor: z.strictObject({
    role: z.enum(['seller', 'buyer']),
    brokerage_id: id,
    user_id: id.nullable().describe("the acting user; null for an API credential or another brokerage's event"),
  }),
  command_id: z.string().nullable().describe("the command that caused it; null for another brokerage's event"),
  at: instant,
});

export const orderEvents = z.strictObject({
  order_id: id,
  events: z.array(orderEvent),
  next_after_seq: z.number().int().nullable().describe('pass as after_seq for the next page; null when this page was the last'),
});

const money = z.string().nullable().describe('decimal with two decimals, e.g. "125.00"');

export const inventoryRecord = z.strictObject({ id: id.nullable(), remote_id: id, event_id: id.nullable() });
export const detailedInventoryRecord = z.strictObject({
  id,
  remote_id: id,
  event_id: id,
  office_id: id,
  account_email: z.string().nullable(),
  cost: money,
  taxed_cost: money,
  price: money,
  face_value: money,
  discount: money,
  quantity: z.number().int(),
  format: z.string().nullable(),
  type: z.string().nullable(),
  view_type: z.string().nullable(),
  section: z.string().nullable(),
  row: z.string().nullable(),
  seats: z.array(
    z.strictObject({
      barcode: z.string().nullable(),
      primary_ticket_id: z.number().int().nullable(),
      seat: z.string().nullable(),
      verification_id: z.string().nullable(),
    }),
  ),
  split_type: z.string().nullable(),
  split_override: z.array(z.number().int()),
  wheelchair_accessible: z.boolean(),
  eticket: z.boolean(),
  instant_delivery: z.boolean(),
  in_hand: z.boolean(),
  in_hand_on: z.string().nullable().describe('YYYY-MM-DD'),
  external_notes: z.string().nullable(),
  speculative: z.boolean(),
  created_at: instant,
  updated_at: instant,
});
export const inventoryPage = z.union([
  z.array(inventoryRecord).describe('default mode: a bare array of id, remote_id, event_id'),
  z.strictObject({ inventory: z.array(detailedInventoryRecord) }).describe('response=detailed'),
]);

export const commandQueued = z.strictObject({
  id: z.string(),
  status: z.literal('queued'),
  url: z.string().describe('/v9/commands/<id>, also in the Location header'),
});

export const commandStatus = z.strictObject({
  id: z.string(),
  name: z.string().describe('order.accept, shipment.update, shipment.complete, …'),
  status: z.enum(['queued', 'running', 'succeeded', 'failed']),
  created_at: instant,
  finished_at: instant.nullable(),
  response: z
    .strictObject({ status: z.number().int(), body: z.unknown() })
    .optional()
    .describe('once finished: exactly the status and body the synchronous call would have answered'),
});

export const currentCredential = z.strictObject({
  token: z.string(),
  kind: z.enum(['api', 'user']),
  brokerage_id: id,
  user_id: id.nullable(),
});

export const verified = z.strictObject({ ok: z.literal(true) });

export const frontDoor = z.strictObject({
  service: z.literal('fulfil'),
  version: z.string(),
  description: z.string(),
  links: z.strictObject({ docs: z.string(), openapi: z.string(), reference: z.string(), livez: z.string(), readyz: z.string() }),
});

export const live = z.strictObject({ status: z.literal('ok') });
export const ready = z.strictObject({
  status: z.enum(['ready', 'unavailable']),
  checks: z.record(z.string(), z.enum(['ok', 'down'])),
});
