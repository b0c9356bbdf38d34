import { z } from 'zod';
import type { EventKind } from './event-kinds.ts';

/** The `topic` of every shipment event message (the outbox's topic; its field in each message). */
export const SHIPMENT_EVENT_TOPIC = 'shipment.transition';

/**
 * Who caused an event. A party (the seller's or the buyer's brokerage) through a command it sent,
 * or the service itself (a deadline passing, an operator's action), which no party caused and no
 * command carries: then `command_id` is null. Consumers branch on `type`.
 */
export const partyActor = z.strictObject({
  type: z.literal('party'),
  role: z.enum(['seller', 'buyer']),
  brokerage_id: z.number().int().positive(),
  user_id: z
    .number()
    .int()
    .positive()
    .nullable()
    .describe("the acting user; null for an API credential (and, in what a party reads, for the other party's events)"),
});

export const systemActor = z.strictObject({
  type: z.literal('system'),
  reason: z.string().min(1).describe('why the service acted, a short code such as deadline_passed or operator_action'),
});

export const eventActor = z.discriminatedUnion('type', [partyActor, systemActor]);

export type PartyActor = z.infer<typeof partyActor>;
export type SystemActor = z.infer<typeof systemActor>;
export type EventActor = z.infer<typeof eventActor>;

/**
 * What an event says beyond its transition, by kind: a refusal's reason, a moved deadline, the
 * files uploaded (their ids and download paths, never their bytes). Null for the kinds that say
 * nothing more. Each kind's fields are documented in docs/WEBHOOKS.md.
 */
export type EventDetails = Readonly<Record<string, unknown>>;

interface EventTransition {
  event_id: string;
  topic: typeof SHIPMENT_EVENT_TOPIC;
  order_id: number;
  /** Per order, from 1, across shipment replacements. */
  seq: number;
  kind: EventKind;
  /** The shipment the event is about (the version it started from); null when it made the first one or the order has none. */
  shipment_id: number | null;
  /** The shipment version the event left; null only for an order that has no shipment (a refused order). */
  new_shipment_id: number | null;
  from_type: string | null;
  from_state: string | null;
  to_type: string | null;
  to_state: string | null;
  details: EventDetails | null;
  at: string;
  /**
   * False for an event of a test order (test mode). Messages written before test mode carry
   * none: read a missing `livemode` as true.
   */
  livemode?: boolean;
  /** The test clock the order lives at; null (or missing) for the wall clock. */
  test_clock?: number | null;
}

/**
 * An event as consumers of the events stream receive it (an entry's `message`, see
 * event-stream.ts), and as the order's history keeps it. A party's event names the command
 * that caused it; a system event has none. Messages written before actors had a `type` carry a
 * party's actor without it: read an actor with no `type` as `party`. Messages written before
 * events had details carry none: read a missing `details` as null.
 */
export type EventMessage = EventTransition & ({ actor: PartyActor; command_id: string } | { actor: SystemActor; command_id: null });
