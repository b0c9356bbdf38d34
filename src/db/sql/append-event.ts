import { randomUUID } from 'node:crypto';
import { SHIPMENT_EVENT_TOPIC, type ShipmentEventKind, type ShipmentEventMessage } from '../../events/shipment-event.ts';

/**
 * The tail every shipment-changing statement ends with: given CTEs `o` (the order row, updated
 * with `event_seq = event_seq + 1` and returning id, event_seq) and `n` (the shipment as it now
 * is, returning id), it appends the event to the order's history and the outbox in the same
 * statement. The per-order sequence is the order's own counter, bumped under the order lock: no
 * max(seq) scan. The message is built in JavaScript except for what only the statement knows
 * (seq, the new shipment id); jsonb keeps no key order, so consumers read it by name.
 */
export function appendEventCtes(messageParam: string): string {
  return `
m as (select ${messageParam}::text::jsonb || jsonb_build_object('seq', o.event_seq, 'new_shipment_id', n.id) as msg,
             o.id as order_id, o.event_seq, n.id as new_id from o, n),
e as (insert into shipment_events (event_id, order_id, seq, kind, shipment_id, new_shipment_id, from_type, from_state,
        to_type, to_state, actor_brokerage_id, actor_user_id, actor_role, command_id, at)
      select msg->>'event_id', order_id, event_seq, msg->>'kind', (msg->>'shipment_id')::bigint, new_id,
        msg->>'from_type', msg->>'from_state', msg->>'to_type', msg->>'to_state', (msg#>>'{actor,brokerage_id}')::bigint,
        (msg#>>'{actor,user_id}')::bigint, msg#>>'{actor,role}', msg->>'command_id', (msg->>'at')::timestamptz
      from m),
x as (insert into outbox (event_id, topic, order_id, payload) select msg->>'event_id', '${SHIPMENT_EVENT_TOPIC}', order_id, msg from m)`;
}

export interface EventFacts {
  orderId: number;
  kind: ShipmentEventKind;
  shipmentId: number | null;
  from: { type: string; state: string } | null;
  to: { type: string; state: string };
  actor: { brokerageId: number; userId: number | null; role: 'seller' | 'buyer' };
  commandId: string;
}

/** The event message without seq and new_shipment_id, which the statement adds. */
export function eventMessage(t: EventFacts): string {
  const message: Omit<ShipmentEventMessage, 'seq' | 'new_shipment_id'> = {
    event_id: randomUUID(),
    topic: SHIPMENT_EVENT_TOPIC,
    order_id: t.orderId,
    kind: t.kind,
    shipment_id: t.shipmentId,
    from_type: t.from?.type ?? null,
    from_state: t.from?.state ?? null,
    to_type: t.to.type,
    to_state: t.to.state,
    actor: { brokerage_id: t.actor.brokerageId, user_id: t.actor.userId, role: t.actor.role },
    command_id: t.commandId,
    at: new Date().toISOString(),
  };
  return JSON.stringify(message);
}
