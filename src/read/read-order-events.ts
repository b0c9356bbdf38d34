import { and, asc, eq, gt } from 'drizzle-orm';
import type { Caller } from '../auth/caller.ts';
import type { Executor } from '../db/client.ts';
import { shipmentEvents } from '../db/schema.ts';
import { readableOrder } from './order-parties.ts';

export interface EventsPage {
  afterSeq: number;
  limit: number;
}

/**
 * GET /v9/orders/:id/events: the order's shipment history in seq order, a page at a time (keyset
 * on the (order_id, seq) index). The fields are those of the fulfil-events messages, except that
 * who acted inside the other party (its user, its command id) is that party's own business: a
 * caller sees user_id and command_id of its own brokerage's events only, null otherwise.
 */
export async function readOrderEvents(ex: Executor, orderId: number, caller: Pick<Caller, 'brokerageId'>, page: EventsPage) {
  const order = await readableOrder(ex, orderId, caller);
  const rows = await ex
    .select()
    .from(shipmentEvents)
    .where(and(eq(shipmentEvents.orderId, order.id), gt(shipmentEvents.seq, page.afterSeq)))
    .orderBy(asc(shipmentEvents.seq))
    .limit(page.limit);
  const events = rows.map((e) => {
    const own = e.actorBrokerageId === caller.brokerageId;
    return {
      event_id: e.eventId,
      seq: e.seq,
      kind: e.kind,
      shipment_id: e.shipmentId,
      new_shipment_id: e.newShipmentId,
      from_type: e.fromType,
      from_state: e.fromState,
      to_type: e.toType,
      to_state: e.toState,
      actor: { role: e.actorRole, brokerage_id: e.actorBrokerageId, user_id: own ? e.actorUserId : null },
      command_id: own ? e.commandId : null,
      at: e.at.toISOString(),
    };
  });
  const last = events.at(-1);
  return { order_id: order.id, events, next_after_seq: events.length === page.limit && last ? last.seq : null };
}
