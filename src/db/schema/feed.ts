import { bigint, integer, pgTable, primaryKey } from 'drizzle-orm/pg-core';

/**
 * The brokerage-wide event feed (GET /v9/events): one row per event and party of its order,
 * written by the outbox relay as it relays the event. `position` is given in relay order, and
 * relay batches run one at a time and commit before the next takes its positions, so the
 * positions a reader can see are always a prefix: a keyset cursor over them never skips an
 * event that commits later (docs/WEBHOOKS.md, "Pulling instead: the event feed").
 *
 * No foreign keys: the relay writes each row from the event's own row and its order's parties,
 * in the statement that reads them, and neither events nor brokerages are ever deleted. A key
 * here cost two checks per row (four per event), each locking the referenced row.
 */
export const eventFeed = pgTable(
  'event_feed',
  {
    brokerageId: bigint('brokerage_id', { mode: 'number' }).notNull(),
    position: bigint('position', { mode: 'number' }).notNull(),
    eventRowId: bigint('event_row_id', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.brokerageId, t.position] })],
);

/** The last feed position given: one row, bumped by the relay under its lock. */
export const eventFeedHead = pgTable('event_feed_head', {
  id: integer('id').primaryKey().default(1),
  position: bigint('position', { mode: 'number' }).notNull().default(0),
});
