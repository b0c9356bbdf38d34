import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { orders } from './orders.ts';

/**
 * A hold on an order (drizzle/0031, src/domain/holds.ts): active while `released_at` is null.
 * Who placed and released it is a party (seller, buyer) with its brokerage and user, or an
 * operator by name; `release_why` says whether a party, an operator or `release_at` released it.
 */
export const holds = pgTable(
  'holds',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    orderId: bigint('order_id', { mode: 'number' })
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    reason: text('reason').notNull(),
    notes: text('notes'),
    /** The placer's idempotency handle: a second hold with it answers the first. */
    handle: text('handle'),
    /** The seats held, as the order names them; empty: the whole order. */
    seats: jsonb('seats')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    placedByParty: text('placed_by_party').notNull(),
    placedByBrokerageId: bigint('placed_by_brokerage_id', { mode: 'number' }),
    placedByUserId: bigint('placed_by_user_id', { mode: 'number' }),
    placedByOperator: text('placed_by_operator'),
    placedAt: timestamp('placed_at', { withTimezone: true }).notNull(),
    releaseAt: timestamp('release_at', { withTimezone: true }),
    releasedAt: timestamp('released_at', { withTimezone: true }),
    releasedByParty: text('released_by_party'),
    releasedByBrokerageId: bigint('released_by_brokerage_id', { mode: 'number' }),
    releasedByUserId: bigint('released_by_user_id', { mode: 'number' }),
    releasedByOperator: text('released_by_operator'),
    releaseWhy: text('release_why'),
    answerNotes: text('answer_notes'),
    answeredAt: timestamp('answered_at', { withTimezone: true }),
    /** What its release added to the order's deliver_by (ms). */
    deadlineExtendedMs: bigint('deadline_extended_ms', { mode: 'number' }).notNull().default(0),
    commandId: text('command_id'),
  },
  (t) => [
    uniqueIndex('holds_order_handle').on(t.orderId, t.handle),
    index('holds_active_idx')
      .on(t.orderId)
      .where(sql`${t.releasedAt} is null`),
    index('holds_release_due_idx')
      .on(t.releaseAt, t.orderId)
      .where(sql`${t.releasedAt} is null and ${t.releaseAt} is not null`),
  ],
);
