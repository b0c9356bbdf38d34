import { randomUUID } from 'node:crypto';
import { SHIPMENT_EVENT_TOPIC, type EventDetails, type EventKind, type EventMessage, type SystemActor } from '@fulfil/contract';

/**
 * The tail every shipment-changing statement ends with: given CTEs `o` (the order row, updated
 * with `event_seq = event_seq + 1` and returning id, event_seq) and `n` (the shipment as it now
 * is, returning id; no row for an order that has none, such as a refused one), it appends the
 * event to the order's history and names its row in the outbox, in the same statement. The
 * per-order sequence is the order's own counter, bumped under the order lock: no max(seq) scan.
 * The event's values come as one JSON parameter (eventMessage) and are written as the row's
 * columns; the statement adds what only it knows (seq, the new shipment id). The outbox entry is
 * the event's feed row without a position (schema/feed.ts: the event row's id and its order's two
 * parties, read here, where the order is at hand); the relay builds the message from the event
 * row (eventMessageOf) and gives the feed row its position. A
 * party's and a system event take the same path; the table's check refuses an actor that is
 * neither.
 *
 * `shipmentBefore`: for a statement that changes the shipment in place, what it changed
 * (shipment-version.ts, shipmentBeforeOf); SQL over `n`.
 *
 * One statement may append the events of several orders (the deadline timers fire a batch): `o`
 * then has a row per order and carries each one's message as a column (`message` names it, e.g.
 * `o.message`), `n` carries its order id, and `joinOn` pairs them (e.g. `n.order_id = o.id`).
 */
export function appendEventCtes(message: string, joinOn = 'true', shipmentBefore = 'null::jsonb'): string {
  return `
m as (select ${message}::text::jsonb || jsonb_build_object('seq', o.event_seq, 'new_shipment_id', n.id) as msg,
             o.id as order_id, o.event_seq, n.id as new_id, ${shipmentBefore} as before from o left join n on ${joinOn}),
e as (insert into shipment_events (event_id, order_id, seq, kind, shipment_id, new_shipment_id, from_type, from_state,
        to_type, to_state, details, actor_type, actor_brokerage_id, actor_user_id, actor_role, actor_reason, command_id, at,
        shipment_before, livemode, test_clock_id)
      select m.msg->>'event_id', m.order_id, m.event_seq, m.msg->>'kind', (m.msg->>'shipment_id')::bigint, m.new_id,
        m.msg->>'from_type', m.msg->>'from_state', m.msg->>'to_type', m.msg->>'to_state', nullif(m.msg->'details', 'null'::jsonb),
        m.msg#>>'{actor,type}', (m.msg#>>'{actor,brokerage_id}')::bigint, (m.msg#>>'{actor,user_id}')::bigint, m.msg#>>'{actor,role}',
        m.msg#>>'{actor,reason}', m.msg->>'command_id', coalesce(fulfil_clock(), (m.msg->>'at')::timestamptz), m.before,
        ro.livemode, ro.test_clock_id
      from m join orders ro on ro.id = m.order_id returning id, order_id),
x as (insert into event_feed (event_row_id, seller_brokerage_id, buyer_brokerage_id)
      select e.id, f.brokerage_id, r.buyer_brokerage_id from e join orders r on r.id = e.order_id join offices f on f.id = r.seller_office_id)`;
}

/**
 * The event message (EventMessage in @fulfil/contract) of a shipment_events row `e`, as jsonb:
 * what the relay hands on, built from the row when it relays it, so the outbox carries no copy.
 * The row holds every field eventMessage below wrote; `at` is written back in its ISO form with
 * milliseconds, as JavaScript gave it (test/integration/event-message.test.ts holds both to one shape).
 */
export function eventMessageOf(e: string): string {
  return `jsonb_build_object('event_id', ${e}.event_id, 'topic', '${SHIPMENT_EVENT_TOPIC}', 'order_id', ${e}.order_id,
  'seq', ${e}.seq, 'kind', ${e}.kind, 'shipment_id', ${e}.shipment_id, 'new_shipment_id', ${e}.new_shipment_id,
  'from_type', ${e}.from_type, 'from_state', ${e}.from_state, 'to_type', ${e}.to_type, 'to_state', ${e}.to_state,
  'details', ${e}.details, 'at', to_char(${e}.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'actor', case when ${e}.actor_type = 'party'
    then jsonb_build_object('type', 'party', 'brokerage_id', ${e}.actor_brokerage_id, 'user_id', ${e}.actor_user_id, 'role', ${e}.actor_role)
    else jsonb_build_object('type', 'system', 'reason', ${e}.actor_reason) end,
  'command_id', ${e}.command_id, 'livemode', ${e}.livemode, 'test_clock', ${e}.test_clock_id)`;
}

interface TransitionFacts {
  orderId: number;
  kind: EventKind;
  shipmentId: number | null;
  from: { type: string; state: string } | null;
  /** The shipment as the event leaves it; null for an order that has none. */
  to: { type: string; state: string } | null;
  /** What the event says beyond the transition (EventDetails); never file bytes. */
  details?: EventDetails;
}

/** An event a party caused with a command. */
export interface EventFacts extends TransitionFacts {
  actor: { brokerageId: number; userId: number | null; role: 'seller' | 'buyer' };
  commandId: string;
}

/** An event the service caused (a deadline passed, an operator acted): no party, no command. */
export interface SystemEventFacts extends TransitionFacts {
  actor: SystemActor;
}

// Omit over each member of the message union, so a party's actor still comes with its command id.
type WithoutStatementFields<M> = M extends unknown ? Omit<M, 'seq' | 'new_shipment_id'> : never;

/** The event message without seq and new_shipment_id, which the statement adds. */
export function eventMessage(t: EventFacts | SystemEventFacts): string {
  const transition = {
    event_id: randomUUID(),
    topic: SHIPMENT_EVENT_TOPIC,
    order_id: t.orderId,
    kind: t.kind,
    shipment_id: t.shipmentId,
    from_type: t.from?.type ?? null,
    from_state: t.from?.state ?? null,
    to_type: t.to?.type ?? null,
    to_state: t.to?.state ?? null,
    details: t.details ?? null,
    at: new Date().toISOString(),
  } as const;
  const message: WithoutStatementFields<EventMessage> =
    'commandId' in t
      ? {
          ...transition,
          actor: { type: 'party', brokerage_id: t.actor.brokerageId, user_id: t.actor.userId, role: t.actor.role },
          command_id: t.commandId,
        }
      : { ...transition, actor: { type: 'system', reason: t.actor.reason }, command_id: null };
  return JSON.stringify(message);
}
