import { z } from 'zod';
import { COMMAND_OUTCOMES } from '../../commands/command-outcome.ts';
import { deliveryIssueAnswers, eventActor, holdAnswers, shipmentAnswers, eventKind, eventType } from '@fulfil/contract';

// What each route answers, as documentation: the renderers in src/domain/shipment-response.ts
// and src/read/ build these bodies, and the contract test checks real answers against them.
// Objects are strict, so a key added to a renderer but not here fails that test. The commands'
// answers are defined in @fulfil/contract, which also types the producer's awaited calls.

export const {
  acceptedOrder,
  orderAnswer,
  acceptedShipment,
  address,
  buyerPhoneNumber,
  buyerPickupShipment,
  completedShipment,
  emailAddress,
  mobileTransferShipment,
  phoneNumber,
  sellerPickupShipment,
  updatedShipment,
} = shipmentAnswers;
const { id, instant, orderFacts, recipient, shipmentState, shipmentType, url } = shipmentAnswers;

export const readShipment = z.union([
  shipmentAnswers.mailedShipment,
  z
    .strictObject({
      id,
      url,
      type: shipmentType.exclude(['LocalPickup']),
      state: shipmentState,
      ...recipient,
      x_mobile_link: z.string().optional(),
      barcodes: deliveryIssueAnswers.shipmentBarcodes
        .optional()
        .describe('GET /v9/shipments/:id: the barcodes it gave, live and revoked (by a reissue) apart; absent when none'),
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

/** GET /v9/shipments/:id: the shipment as read, with its order's mode (not repeated inside an order or an event). */
export const shipmentRead = z.union(
  readShipment.options.map((shape) => shape.extend({ livemode: z.boolean().describe('false for a shipment of a test order (test mode)') })),
);

export const readOrder = acceptedOrder.extend({
  ...orderFacts,
  shipments: z.array(readShipment).max(1).describe('the live shipment; empty before the order is accepted'),
  holds: z.array(holdAnswers.hold).describe('the active holds (GET /v9/orders/:id/holds lists every one)'),
  on_hold: z.boolean().describe('whether any hold is active: completion and uploads wait, and so do the deadline timers'),
});

export const orderEvent = z.strictObject({
  event_id: z.string(),
  seq: z.number().int().positive().describe('per order, across shipment replacements'),
  kind: eventKind,
  shipment_id: id.nullable().describe('the shipment acted on; null for created'),
  new_shipment_id: id.nullable().describe('the shipment after the event (a replacement for updates); null for an order that has none'),
  from_type: shipmentType.nullable(),
  from_state: shipmentState.nullable(),
  to_type: shipmentType.nullable().describe('null, with to_state, for an order that has no shipment'),
  to_state: shipmentState.nullable(),
  details: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe(
      'what the event says beyond its transition, by kind (docs/WEBHOOKS.md, "Event details"); null for kinds that say nothing more',
    ),
  actor: eventActor.describe('a party (seller or buyer, through a command) or the system (a deadline, an operator), by `type`'),
  command_id: z.string().nullable().describe("the command that caused it; null for another brokerage's event and for a system event"),
  at: instant,
});

export const orderEvents = z.strictObject({
  order_id: id,
  events: z.array(orderEvent),
  next_after_seq: z.number().int().nullable().describe('pass as after_seq for the next page; null when this page was the last'),
  livemode: z.boolean().describe("false for a test order's events (test mode)"),
});

export const publicEvent = z.strictObject({
  id: z.string().describe('the event id: the same in every webhook delivery of the event and in the feed; de-duplicate on it'),
  type: eventType,
  created_at: instant,
  order_id: id,
  seq: z.number().int().positive().describe('per order: events of one order come in seq order'),
  livemode: z.boolean().describe('false for an event of a test order (test mode)'),
  test_clock: z.number().int().nullable().describe('the test clock the order lives at; null: the wall clock'),
  data: z.strictObject({
    event: orderEvent.describe('the event as GET /v9/orders/:id/events lists it, trimmed for your party'),
    shipment: readShipment
      .nullable()
      .describe('the shipment version the event left (new_shipment_id) as GET /v9/shipments/:id showed it then; never changed afterwards'),
  }),
});

export const eventFeedPage = z.strictObject({
  events: z.array(publicEvent).describe('oldest first'),
  next_cursor: z.string().describe('pass as `after` for the next page (opaque); on an empty page, the cursor you gave'),
  has_more: z.boolean().describe('true when more events follow at once; false: you are caught up (long poll with `wait`)'),
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
  status: z.enum(COMMAND_OUTCOMES),
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
  /** false: a test credential, acting for the brokerage's sandbox twin (which brokerage_id names). */
  livemode: z.boolean(),
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
