import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * The events of the brokerage feeds (GET /v9/events), and the outbox: one row per event, naming
 * both parties of its order (the seller office's brokerage and the buyer's), written by the
 * statement that appends the event, in its transaction. A row without a position is an event the
 * relay has not handed on yet; the relay's batch gives it its position in place
 * (src/events/outbox-relay.ts). Positions are given in relay order, and relay batches run one at
 * a time and commit before the next takes its positions, so the positions a reader can see are
 * always a prefix: a keyset cursor over them never skips an event that commits later
 * (docs/WEBHOOKS.md, "Pulling instead: the event feed"). One row per event, not per party, and no
 * separate outbox row: an event costs two row writes here (D-143), where it cost five.
 *
 * No foreign keys: the row is written from the event's own row and its order's parties in the
 * statement that writes the event, and neither events nor brokerages are ever deleted.
 */
export const eventFeed = pgTable(
  'event_feed',
  {
    eventRowId: bigint('event_row_id', { mode: 'number' }).notNull(),
    sellerBrokerageId: bigint('seller_brokerage_id', { mode: 'number' }).notNull(),
    buyerBrokerageId: bigint('buyer_brokerage_id', { mode: 'number' }).notNull(),
    /** Null: waiting for the relay (the outbox). */
    position: bigint('position', { mode: 'number' }),
  },
  (t) => [
    // The outbox: the relay takes the waiting rows in event row order.
    uniqueIndex('event_feed_waiting')
      .on(t.eventRowId)
      .where(sql`${t.position} is null`),
    // Each party's feed, a keyset scan at any depth; a waiting row is in neither.
    index('event_feed_seller')
      .on(t.sellerBrokerageId, t.position)
      .where(sql`${t.position} is not null`),
    index('event_feed_buyer')
      .on(t.buyerBrokerageId, t.position)
      .where(sql`${t.position} is not null`),
  ],
);

/** The last feed position given: one row, bumped by the relay under its lock. */
export const eventFeedHead = pgTable('event_feed_head', {
  id: integer('id').primaryKey().default(1),
  position: bigint('position', { mode: 'number' }).notNull().default(0),
});
