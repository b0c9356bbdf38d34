import { withMode } from './answer-mode.ts';
import { and, asc, eq, gt } from 'drizzle-orm';
import type { Caller } from '../auth/caller.ts';
import type { Executor } from '../db/client.ts';
import { shipmentEvents } from '../db/schema.ts';
import { eventItem, shipmentEventColumns } from '../events/public-event.ts';
import { readableOrder } from './order-parties.ts';

export interface EventsPage {
  afterSeq: number;
  limit: number;
}

/**
 * GET /v9/orders/:id/events: the order's shipment history in seq order, a page at a time (keyset
 * on the (order_id, seq) index), each event trimmed for the caller's party (eventItem).
 */
export async function readOrderEvents(ex: Executor, orderId: number, caller: Pick<Caller, 'brokerageId'>, page: EventsPage) {
  const order = await readableOrder(ex, orderId, caller);
  const rows = await ex
    .select(shipmentEventColumns)
    .from(shipmentEvents)
    .where(and(eq(shipmentEvents.orderId, order.id), gt(shipmentEvents.seq, page.afterSeq)))
    .orderBy(asc(shipmentEvents.seq))
    .limit(page.limit);
  const events = rows.map((e) => eventItem(e, caller.brokerageId));
  const last = events.at(-1);
  return withMode({ order_id: order.id, events, next_after_seq: events.length === page.limit && last ? last.seq : null }, order.facts);
}
