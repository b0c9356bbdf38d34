import { sql } from 'drizzle-orm';
import { bigint, check, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

const id = (name = 'id') => bigint(name, { mode: 'number' });

export const brokerages = pgTable('brokerages', {
  id: id().primaryKey(),
  name: text('name').notNull(),
});

export const offices = pgTable(
  'offices',
  {
    id: id().primaryKey(),
    brokerageId: id('brokerage_id')
      .notNull()
      .references(() => brokerages.id),
    name: text('name').notNull(),
  },
  (t) => [index('offices_brokerage_idx').on(t.brokerageId)],
);

export const users = pgTable(
  'users',
  {
    id: id().primaryKey(),
    brokerageId: id('brokerage_id')
      .notNull()
      .references(() => brokerages.id),
    name: text('name').notNull(),
    email: text('email').notNull(),
  },
  (t) => [index('users_brokerage_idx').on(t.brokerageId)],
);

/** API credentials (of a brokerage) and user credentials (of a user); both act for the brokerage. */
export const credentials = pgTable(
  'credentials',
  {
    token: text('token').primaryKey(),
    kind: text('kind', { enum: ['api', 'user'] }).notNull(),
    brokerageId: id('brokerage_id')
      .notNull()
      .references(() => brokerages.id),
    userId: id('user_id').references(() => users.id),
    /** AES-256-GCM ciphertext of the secret (see src/auth/secret-box.ts); never the plain secret. */
    secretCiphertext: text('secret_ciphertext').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    index('credentials_brokerage_idx').on(t.brokerageId),
    check('credentials_kind_user', sql`(${t.kind} = 'user') = (${t.userId} is not null)`),
  ],
);

export const events = pgTable('events', {
  id: id().primaryKey(),
  name: text('name').notNull(),
  occursAt: timestamp('occurs_at', { withTimezone: true }),
});
