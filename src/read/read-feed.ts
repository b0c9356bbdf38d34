import { and, asc, eq, gt } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { eventFeed, shipmentEvents } from '../db/schema.ts';
import type { FeedWaiters } from '../events/feed-waiters.ts';
import { publicEventsFor, type PublicEvent } from '../events/public-event.ts';
import { feedCursor } from './feed-query.ts';

export interface FeedPage {
  events: PublicEvent[];
  /** Pass back as `after`; on an empty page, the cursor that was given. */
  next_cursor: string;
  has_more: boolean;
}

/** One page of a brokerage's feed after `afterPosition`: a keyset scan of the (brokerage_id, position) key, flat at any depth. */
export async function readFeedPage(ex: Executor, brokerageId: number, afterPosition: number, limit: number): Promise<FeedPage> {
  const rows = await ex
    .select({ position: eventFeed.position, event: shipmentEvents })
    .from(eventFeed)
    .innerJoin(shipmentEvents, eq(shipmentEvents.id, eventFeed.eventRowId))
    .where(and(eq(eventFeed.brokerageId, brokerageId), gt(eventFeed.position, afterPosition)))
    .orderBy(asc(eventFeed.position))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const events = await publicEventsFor(
    ex,
    brokerageId,
    page.map((r) => r.event),
  );
  return { events, next_cursor: feedCursor(page.at(-1)?.position ?? afterPosition), has_more: rows.length > limit };
}

export interface FeedRequest {
  brokerageId: number;
  afterPosition: number;
  limit: number;
  waitMs: number;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
}

/**
 * GET /v9/events. A page is read from `reader` (the replica, when there is one); when it is empty
 * and the caller asked to wait, the request registers as a waiter and from then on reads the
 * primary: the relay's notification comes from the primary's commit, so the primary is where the
 * new event is certain to be, while a replica may not have replayed it yet (docs/WEBHOOKS.md).
 * Registering before re-reading means an event committed in between is not missed.
 */
export async function readFeed(deps: { reader: Executor; primary: Executor; waiters: FeedWaiters }, req: FeedRequest): Promise<FeedPage> {
  const first = await readFeedPage(deps.reader, req.brokerageId, req.afterPosition, req.limit);
  if (first.events.length > 0 || req.waitMs <= 0) return first;
  const deadline = Date.now() + req.waitMs;
  const waiter = deps.waiters.register(req.brokerageId);
  try {
    let page = await readFeedPage(deps.primary, req.brokerageId, req.afterPosition, req.limit);
    while (page.events.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0 || (await waiter.next(left, req.signal)) !== 'event') break;
      page = await readFeedPage(deps.primary, req.brokerageId, req.afterPosition, req.limit);
    }
    return page;
  } finally {
    waiter.release();
  }
}
