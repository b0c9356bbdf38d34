import type { Results } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type postgres from 'postgres';
import type { EmbeddedThread } from './embedded-client.ts';
import type * as schema from './schema.ts';

// What a database handle is, whichever driver opened it (client.ts opens Postgres,
// pglite-database.ts the embedded PGlite); every caller imports these through client.ts.

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction handle; handlers take this so they cannot commit halfway. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type Executor = Db | Tx;

/**
 * Raw SQL on the hot path, without the query builder: each text is a constant, so postgres.js
 * prepares it once per connection (a named statement) and later calls skip Parse/Describe.
 * Rows come back keyed by column name, as the driver parsed them.
 */
export interface SqlRunner {
  rows<T extends object>(text: string, params: readonly unknown[]): Promise<T[]>;
}

/** A transaction: raw SQL, and the query builder over the same connection for cold paths. */
export interface SqlTx extends SqlRunner {
  readonly db: Tx;
  /**
   * The transaction's last statement, sent together with COMMIT (one round trip for both). Should
   * the statement fail, Postgres turns that COMMIT into a rollback and the error is thrown here.
   * Nothing may run on the transaction afterwards.
   */
  finish<T extends object>(text: string, params: readonly unknown[]): Promise<T[]>;
}

export interface Database extends SqlRunner {
  readonly kind: 'postgres' | 'pglite';
  readonly db: Db;
  /**
   * Calls onNotify with the payload of every NOTIFY of the channel (postgres.js keeps a connection
   * for it and listens again after a reconnect), and onListen each time the LISTEN holds: first,
   * and again after every reconnect (notifications sent in between are lost). Resolves with the
   * function that stops listening.
   */
  listen(channel: string, onNotify: (payload: string) => void, onListen?: () => void): Promise<() => Promise<void>>;
  /** Runs fn in one transaction (commit when it resolves, rollback when it throws). */
  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T>;
  /** The postgres.js client, for streaming reads; absent on PGlite. */
  readonly sql?: postgres.Sql;
  /** The embedded PGlite, running in a thread of its own (embedded-client.ts); absent on Postgres. */
  readonly embedded?: EmbeddedDatabase;
  close(): Promise<void>;
}

/** What only the embedded database has. */
export interface EmbeddedDatabase {
  /** Runs a multi-statement text in one message and answers one result per statement. */
  exec(text: string): Promise<Results[]>;
  migrate(migrationsFolder: string, lockKey: number): Promise<void>;
  /** The thread PGlite runs in: the CLI socket (pglite-socket.ts) lends the session through it. */
  readonly thread: EmbeddedThread;
}
