import { z } from 'zod';
import type { ShipmentEventKind } from './event-kinds.ts';

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

interface ShipmentTransition {
  event_id: string;
  topic: typeof SHIPMENT_EVENT_TOPIC;
  order_id: number;
  /** Per order, from 1, across shipment replacements. */
  seq: number;
  kind: ShipmentEventKind;
  shipment_id: number | null;
  new_shipment_id: number;
  from_type: string | null;
  from_state: string | null;
  to_type: string;
  to_state: string;
  at: string;
}

/**
 * A shipment event as consumers of the events stream receive it (an entry's `message`, see
 * event-stream.ts), and as the order's history keeps it. A party's event names the command
 * that caused it; a system event has none. Messages written before actors had a `type` carry a
 * party's actor without it: read an actor with no `type` as `party`.
 */
export type ShipmentEventMessage = ShipmentTransition &
  ({ actor: PartyActor; command_id: string } | { actor: SystemActor; command_id: null });
