import { z } from 'zod';

/**
 * Every kind of event an order's history holds, defined once, each with its public type (what event
 * objects, webhooks and GET /v9/events call it). The TypeScript types, the zod enums of the
 * answers, the webhook endpoint filters and the OpenAPI document (its `webhooks` section has one
 * entry per type) all derive from this table. A kind is added here and nowhere else; a webhook
 * endpoint that receives every kind receives it without being changed.
 *
 * The prefix says what the event is about: `shipment.*` a shipment of the order (its versions, its
 * files, its deadline), `order.*` the order itself (refused, cancelled, its in-hand date moved).
 * Kinds are unique across both, so the stored kind alone names the type.
 */
export const EVENT_TYPE_OF_KIND = {
  created: 'shipment.created',
  updated: 'shipment.updated',
  pickup_details: 'shipment.pickup_details',
  delivered: 'shipment.delivered',
  completed: 'shipment.completed',
  etickets_uploaded: 'shipment.etickets_uploaded',
  transfer_verified: 'shipment.transfer_verified',
  due_soon: 'shipment.due_soon',
  overdue: 'shipment.overdue',
  rejected: 'order.rejected',
  cancel_proposed: 'order.cancel_proposed',
  cancel_withdrawn: 'order.cancel_withdrawn',
  canceled: 'order.canceled',
  in_hand_updated: 'order.in_hand_updated',
  delivery_issue_opened: 'order.delivery_issue_opened',
  delivery_issue_responded: 'order.delivery_issue_responded',
  delivery_issue_resolved: 'order.delivery_issue_resolved',
  delivery_issue_escalated: 'order.delivery_issue_escalated',
  delivery_issue_closed: 'order.delivery_issue_closed',
  reissued: 'shipment.reissued',
  // Mailed tickets (docs/LIFECYCLE.md §Mailed tickets); `delivered` above carries a carrier's delivery scan.
  airbill_created: 'shipment.airbill_created',
  in_transit: 'shipment.in_transit',
  out_for_delivery: 'shipment.out_for_delivery',
  delivery_exception: 'shipment.delivery_exception',
  returned: 'shipment.returned',
  at_risk: 'shipment.at_risk',
  // Holds (docs/API.md §Holds): placed, released (by a party, an operator or release_at), and the deadline a release moved.
  hold_placed: 'order.hold_placed',
  hold_released: 'order.hold_released',
  hold_answered: 'order.hold_answered',
  deadline_extended: 'order.deadline_extended',
} as const;

export type EventKind = keyof typeof EVENT_TYPE_OF_KIND;

/** The public type of an event kind, as event objects (webhooks, GET /v9/events) name it. */
export type EventType = (typeof EVENT_TYPE_OF_KIND)[EventKind];

type Kinds = ReadonlyArray<EventKind> & { readonly 0: EventKind };
type Types = ReadonlyArray<EventType> & { readonly 0: EventType };

/** The kinds in the table's order (z.enum takes a non-empty tuple, hence the casts). */
export const EVENT_KINDS = Object.keys(EVENT_TYPE_OF_KIND) as unknown as Kinds;
export const EVENT_TYPES = Object.values(EVENT_TYPE_OF_KIND) as unknown as Types;

/** The kinds a deadline's timers emit, as system events (the reminder, then the deadline itself). */
export const DEADLINE_EVENT_KINDS = ['due_soon', 'overdue'] as const satisfies readonly EventKind[];

export function eventTypeOf<K extends EventKind>(kind: K): (typeof EVENT_TYPE_OF_KIND)[K] {
  return EVENT_TYPE_OF_KIND[kind];
}

export const eventKind = z.enum(EVENT_KINDS as unknown as [EventKind, ...EventKind[]]);
export const eventType = z.enum(EVENT_TYPES as unknown as [EventType, ...EventType[]]);

export function isEventKind(value: string): value is EventKind {
  return Object.hasOwn(EVENT_TYPE_OF_KIND, value);
}

/** The kinds of a delivery issue's steps (docs/API.md §Delivery issues). */
export const DELIVERY_ISSUE_EVENT_KINDS = [
  'delivery_issue_opened',
  'delivery_issue_responded',
  'delivery_issue_resolved',
  'delivery_issue_escalated',
  'delivery_issue_closed',
] as const satisfies readonly EventKind[];
export type DeliveryIssueEventKind = (typeof DELIVERY_ISSUE_EVENT_KINDS)[number];

/** The kinds of a hold's steps and the deadline a release moves (docs/API.md §Holds). */
export const HOLD_EVENT_KINDS = [
  'hold_placed',
  'hold_released',
  'hold_answered',
  'deadline_extended',
] as const satisfies readonly EventKind[];
export type HoldEventKind = (typeof HOLD_EVENT_KINDS)[number];

/**
 * The events the evidence of delivery (GET /v9/orders/:id/delivery_evidence) lists: the completion,
 * a verified transfer, a reissue, the issue's steps, and a mailed shipment's label, tracking number
 * and shipping (`airbill_created`, the seller's `in_transit`). Uploads, downloads, links, barcodes
 * and carrier scans are read from their own rows.
 */
export const DELIVERY_EVIDENCE_EVENT_KINDS = [
  'completed',
  'transfer_verified',
  'reissued',
  'airbill_created',
  'in_transit',
  ...DELIVERY_ISSUE_EVENT_KINDS,
] as const satisfies readonly EventKind[];
