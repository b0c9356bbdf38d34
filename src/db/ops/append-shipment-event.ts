import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Tx } from '../client.ts';
import { outbox, shipmentEvents } from '../schema.ts';

export const SHIPMENT_EVENT_TOPIC = 'shipment.transition';

export type ShipmentEventKind = 'created' | 'updated' | 'pickup_details' | 'delivered' | 'completed';

export interface ShipmentTransition {
  orderId: number;
  kind: ShipmentEventKind;
  shipmentId: number | null;
  newShipmentId: number;
  from: { type: string; state: string } | null;
  to: { type: string; state: string };
  actor: { brokerageId: number; userId: number | null; role: 'seller' | 'buyer' };
  commandId: string;
}

/** The event as consumers of the fulfil-events queue receive it. */
export interface ShipmentEventMessage {
  event_id: string;
  topic: typeof SHIPMENT_EVENT_TOPIC;
  order_id: number;
  seq: number;
  kind: ShipmentEventKind;
  shipment_id: number | null;
  new_shipment_id: number;
  from_type: string | null;
  from_state: string | null;
  to_type: string;
  to_state: string;
  actor: { brokerage_id: number; user_id: number | null; role: 'seller' | 'buyer' };
  command_id: string;
  at: string;
}

/**
 * Appends a transition to the order's history and to the outbox, in the handler's transaction.
 * The caller holds the order lock, so max(seq)+1 is race-free and the sequence runs across the
 * shipment's replacements.
 */
export async function appendShipmentEvent(tx: Tx, t: ShipmentTransition): Promise<ShipmentEventMessage> {
  const [{ next }] = (await tx
    .select({ next: sql<number>`coalesce(max(${shipmentEvents.seq}), 0)::int + 1` })
    .from(shipmentEvents)
    .where(eq(shipmentEvents.orderId, t.orderId))) as [{ next: number }];
  const message: ShipmentEventMessage = {
    event_id: randomUUID(),
    topic: SHIPMENT_EVENT_TOPIC,
    order_id: t.orderId,
    seq: next,
    kind: t.kind,
    shipment_id: t.shipmentId,
    new_shipment_id: t.newShipmentId,
    from_type: t.from?.type ?? null,
    from_state: t.from?.state ?? null,
    to_type: t.to.type,
    to_state: t.to.state,
    actor: { brokerage_id: t.actor.brokerageId, user_id: t.actor.userId, role: t.actor.role },
    command_id: t.commandId,
    at: new Date().toISOString(),
  };
  // The history row is the message, column for column.
  await tx.insert(shipmentEvents).values({
    eventId: message.event_id,
    orderId: message.order_id,
    seq: message.seq,
    kind: message.kind,
    shipmentId: message.shipment_id,
    newShipmentId: message.new_shipment_id,
    fromType: message.from_type,
    fromState: message.from_state,
    toType: message.to_type,
    toState: message.to_state,
    actorBrokerageId: t.actor.brokerageId,
    actorUserId: t.actor.userId,
    actorRole: t.actor.role,
    commandId: message.command_id,
    at: new Date(message.at),
  });
  await tx.insert(outbox).values({ eventId: message.event_id, topic: SHIPMENT_EVENT_TOPIC, orderId: t.orderId, payload: message });
  return message;
}
