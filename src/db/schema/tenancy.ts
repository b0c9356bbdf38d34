import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, pgSequence, pgTable, text, timestamp, uniqueIndex, type AnyPgColumn } from 'drizzle-orm/pg-core';

const id = (name = 'id') => bigint(name, { mode: 'number' });

/** Ids of sandbox rows (twins, test orders): far above any marketplace id, still exact in JSON (D-148). */
export const sandboxIds = pgSequence('sandbox_ids', { startWith: 7_000_000_000_000_001 });

/**
 * A brokerage of the marketplace (livemode), or a sandbox one (D-148): the twin of a live
 * brokerage (`sandbox_of`), for which its test credentials act, or the simulated counterparty.
 */
export const brokerages = pgTable(
  'brokerages',
  {
    id: id().primaryKey(),
    name: text('name').notNull(),
    livemode: boolean('livemode').notNull().default(true),
    sandboxOf: id('sandbox_of').references((): AnyPgColumn => brokerages.id),
  },
  (t) => [uniqueIndex('brokerages_sandbox_of_key').on(t.sandboxOf)],
);

export const offices = pgTable(
  'offices',
  {
    id: id().primaryKey(),
    brokerageId: id('brokerage_id')
      .notNull()
      .references(() => brokerages.id),
    name: text('name').notNull(),
    /** A twin brokerage's office: the live office it mirrors. */
    sandboxOf: id('sandbox_of').references((): AnyPgColumn => offices.id),
  },
  (t) => [index('offices_brokerage_idx').on(t.brokerageId), uniqueIndex('offices_sandbox_of_key').on(t.sandboxOf)],
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
    /** `test`: acts for the brokerage's sandbox twin, which `brokerage_id` names (D-148). */
    mode: text('mode', { enum: ['live', 'test'] })
      .notNull()
      .default('live'),
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
    check('credentials_mode', sql`${t.mode} in ('live', 'test')`),
  ],
);

export const events = pgTable('events', {
  id: id().primaryKey(),
  name: text('name').notNull(),
  occursAt: timestamp('occurs_at', { withTimezone: true }),
});
