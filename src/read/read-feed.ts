import { and, asc, eq, gt, ne } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import { InvalidParams } from '@fulfil/contract';
import type { Executor } from '../db/client.ts';
import { eventFeed, eventFeedHead, shipmentEvents } from '../db/schema.ts';
import type { FeedWaiters } from '../events/feed-waiters.ts';
import { publicEventOf, shipmentAsLeft, shipmentEventColumns, type PublicEvent } from '../events/public-event.ts';
import { toShipmentVersion } from '../db/sql/shipment-version.ts';
import type { FeedCursors } from './feed-cursor.ts';

export interface FeedPage {
  events: PublicEvent[];
  /** Pass back as `after`; on an empty page, the cursor that was given. */
  next_cursor: string;
  has_more: boolean;
}

/** A page as read: its events and the position of the last (the one given, when there is none). */
export interface FeedRows {
  events: PublicEvent[];
  position: number;
  has_more: boolean;
}

/**
 * One page of a brokerage's feed after `afterPosition`, each event with the shipment version it
 * left (one statement). A feed row names both parties of its event (schema/feed.ts), so the page
 * is the first `limit` of two keyset scans, the brokerage's events as seller and as buyer (an
 * event of an order between two offices of one brokerage counted once), each flat at any depth.
 */
export async function readFeedPage(ex: Executor, brokerageId: number, afterPosition: number, limit: number): Promise<FeedRows> {
  const keyset = { position: eventFeed.position, eventRowId: eventFeed.eventRowId };
  const asSeller = ex
    .select(keyset)
    .from(eventFeed)
    .where(and(eq(eventFeed.sellerBrokerageId, brokerageId), gt(eventFeed.position, afterPosition)))
    .orderBy(asc(eventFeed.position))
    .limit(limit + 1);
  const asBuyer = ex
    .select(keyset)
    .from(eventFeed)
    .where(
      and(eq(eventFeed.buyerBrokerageId, brokerageId), ne(eventFeed.sellerBrokerageId, brokerageId), gt(eventFeed.position, afterPosition)),
    )
    .orderBy(asc(eventFeed.position))
    .limit(limit + 1);
  const mine = unionAll(asSeller, asBuyer).as('mine');
  const rows = await ex
    .select({ position: mine.position, event: shipmentEventColumns, shipment: shipmentAsLeft })
    .from(mine)
    .innerJoin(shipmentEvents, eq(shipmentEvents.id, mine.eventRowId))
    .orderBy(asc(mine.position))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const events = page.map((r) => publicEventOf(r.event, brokerageId, toShipmentVersion(r.shipment)));
  return { events, position: page.at(-1)?.position ?? afterPosition, has_more: rows.length > limit };
}

async function feedHead(ex: Executor): Promise<number> {
  const [row] = await ex.select({ position: eventFeedHead.position }).from(eventFeedHead).where(eq(eventFeedHead.id, 1));
  return row?.position ?? 0;
}

export interface FeedDeps {
  reader: Executor;
  primary: Executor;
  waiters: FeedWaiters;
  cursors: FeedCursors;
}

export interface FeedRequest {
  brokerageId: number;
  /** The caller's token: its long polls are counted against its own cap (feed-waiters.ts). */
  credential: string;
  /** The `after` cursor as given; absent: from the first event. */
  after: string | undefined;
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
export async function readFeed(deps: FeedDeps, req: FeedRequest): Promise<FeedPage> {
  const after = req.after === undefined ? 0 : deps.cursors.open(req.brokerageId, req.after);
  const answer = (rows: FeedRows): FeedPage => ({
    events: rows.events,
    next_cursor: deps.cursors.issue(req.brokerageId, rows.position),
    has_more: rows.has_more,
  });
  const first = await readFeedPage(deps.reader, req.brokerageId, after, req.limit);
  if (first.events.length === 0 && after > 0) await refusePastTheEnd(deps, after);
  if (first.events.length > 0 || req.waitMs <= 0) return answer(first);
  const deadline = Date.now() + req.waitMs;
  const waiter = deps.waiters.register(req.brokerageId, req.credential);
  try {
    let page = await readFeedPage(deps.primary, req.brokerageId, after, req.limit);
    while (page.events.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0 || (await waiter.next(left, req.signal)) !== 'event') break;
      page = await readFeedPage(deps.primary, req.brokerageId, after, req.limit);
    }
    return answer(page);
  } finally {
    waiter.release();
  }
}

/**
 * The feed never answers from past its end: a position beyond the head would pass over the events
 * that later take it. Only a cursor given before the database was put back to an earlier state
 * can be there, since the feed gives out no other. A lagging replica may not have the head yet,
 * so the primary decides.
 */
async function refusePastTheEnd(deps: FeedDeps, position: number): Promise<void> {
  if (position <= (await feedHead(deps.reader))) return;
  if (deps.reader !== deps.primary && position <= (await feedHead(deps.primary))) return;
  throw new InvalidParams(
    'after: a place past the end of this feed; read the feed again without after and skip the event ids you already have',
    'after',
  );
}
