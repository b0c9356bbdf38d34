import { sql } from 'drizzle-orm';
import { bigint, check, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { brokerages } from './tenancy.ts';

export const TEST_CLOCK_STATUSES = ['ready', 'advancing'] as const;

/**
 * A test clock (D-180): a time a sandbox brokerage owns and moves forward only. Orders made on it
 * live at its time (orders.test_clock_id); an advance is durable here (status, advance_to), the
 * job that runs it in Redis only says "go on" (src/sandbox/clock-advance.ts).
 */
export const testClocks = pgTable(
  'test_clocks',
  {
    id: bigint('id', { mode: 'number' })
      .primaryKey()
      .default(sql`nextval('sandbox_ids')`),
    /** The sandbox twin that owns it. */
    brokerageId: bigint('brokerage_id', { mode: 'number' })
      .notNull()
      .references(() => brokerages.id),
    name: text('name'),
    frozenTime: timestamp('frozen_time', { withTimezone: true }).notNull(),
    status: text('status', { enum: TEST_CLOCK_STATUSES }).notNull().default('ready'),
    /** While advancing: the time it advances to. */
    advanceTo: timestamp('advance_to', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('test_clocks_brokerage_idx').on(t.brokerageId, t.id),
    index('test_clocks_advancing_idx')
      .on(t.id)
      .where(sql`${t.status} = 'advancing'`),
    check('test_clocks_status', sql`${t.status} in ('ready', 'advancing')`),
    check('test_clocks_advance_to', sql`(${t.status} = 'advancing') = (${t.advanceTo} is not null)`),
  ],
);

/**
 * A test clock's own events (`test_clock.advancing`, `test_clock.ready`): the clock as the event
 * left it, which its webhook deliveries (order_id null, the event id) send (src/sandbox/clock-events.ts).
 */
export const testClockEvents = pgTable('test_clock_events', {
  eventId: text('event_id').primaryKey(),
  clockId: bigint('clock_id', { mode: 'number' })
    .notNull()
    .references(() => testClocks.id, { onDelete: 'cascade' }),
  kind: text('kind').notNull(),
  body: jsonb('body').notNull(),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
});
