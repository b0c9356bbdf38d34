import type { PGlite } from '@electric-sql/pglite';
import type { SQL } from 'drizzle-orm';
import { PgDatabase, PgDialect, type PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { PgliteSession } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres, PostgresJsSession } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { loadEmbedded } from './embedded.ts';
import * as schema from './schema.ts';

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
}

export interface Database extends SqlRunner {
  readonly kind: 'postgres' | 'pglite';
  readonly db: Db;
  /**
   * Calls onNotify on every NOTIFY of the channel (postgres.js keeps a connection for it and
   * listens again after a reconnect). Resolves with the function that stops listening.
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  /** Runs fn in one transaction (commit when it resolves, rollback when it throws). */
  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T>;
  /** The postgres.js client, for streaming reads; absent on PGlite. */
  readonly sql?: postgres.Sql;
  readonly pglite?: PGlite;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl?: string | undefined;
  /** Where PGlite keeps its files when there is no DATABASE_URL; `memory://` for none. */
  pgliteDir?: string;
  maxConnections?: number;
  timeouts?: DatabaseTimeouts;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
  /** Called with every statement's text before it is sent (postgres.js only): statement budgets in tests. */
  onStatement?: (text: string) => void;
}

/** Every connection has them (milliseconds; 0 turns one off). */
export interface DatabaseTimeouts {
  connectMs: number;
  statementMs: number;
  idleInTransactionMs: number;
  idleMs: number;
}

/** Defaults for callers without a configuration (tests, tools); the service passes its config's. */
export const DEFAULT_TIMEOUTS: DatabaseTimeouts = { connectMs: 5_000, statementMs: 15_000, idleInTransactionMs: 15_000, idleMs: 60_000 };

/** Rows of a raw `execute`, whichever driver ran it (postgres.js gives an array, PGlite `{rows}`). */
export async function query<T extends Record<string, unknown>>(ex: Executor, statement: SQL): Promise<T[]> {
  const result = (await ex.execute(statement)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

const dialect = new PgDialect();

/**
 * The query builder over a transaction that the raw runner opened, for the cold statements of
 * a command (refusals, inventory batches). Built from drizzle's public session classes: its
 * drizzle() factory would re-register the driver's type parsers on every call.
 */
function builderOn(session: PostgresJsSession<never, never, never> | PgliteSession<never, never>): Tx {
  return new PgDatabase(dialect, session as never, undefined) as unknown as Tx;
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.databaseUrl) {
    const t = options.timeouts ?? DEFAULT_TIMEOUTS;
    const sql = postgres(options.databaseUrl, {
      max: options.maxConnections ?? 10,
      onnotice: () => {},
      // int8 ids stay well inside 2^53, so raw queries read them as numbers, as drizzle does
      types: { int8: { to: 20, from: [20], serialize: (v: number) => String(v), parse: (v: string) => Number(v) } },
      // postgres.js counts these in seconds. A connection that cannot open fails fast (the
      // request answers 503) rather than after the driver's default 30 s.
      connect_timeout: t.connectMs / 1000,
      idle_timeout: t.idleMs > 0 ? t.idleMs / 1000 : undefined,
      // Server-side limits, sent as startup parameters so every connection, also one reopened
      // after Postgres restarted, has them without a round trip.
      connection: {
        application_name: options.applicationName ?? 'fulfil',
        statement_timeout: t.statementMs,
        idle_in_transaction_session_timeout: t.idleInTransactionMs,
      },
      // A Postgres restart closes every connection: postgres.js opens new ones on the next query,
      // waiting `backoff` seconds after each failed attempt; queries in flight fail with a
      // connection error that callers turn into 503 (HTTP) or a retry (workers); see
      // scripts/patch-postgres.mjs for why that is safe. The driver's default backoff grows as
      // 3^n/100 s up to 20 s, so a restart of a few seconds left the service waiting far longer
      // than Postgres was away; retrying a refused connect is cheap, so it is capped at 1 s.
      backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
      ...(options.onStatement ? { debug: (_c: number, text: string) => options.onStatement!(text) } : {}),
    });
    return postgresDatabase(sql, { prepare: true });
  }
  // Loaded only here: the production image has no PGlite and always names a DATABASE_URL.
  const { openPgliteDatabase } = await loadEmbedded(() => import('./pglite-database.ts'));
  return openPgliteDatabase(options.pgliteDir ?? 'memory://');
}

/**
 * A Database over a postgres.js client. `prepare` names every raw statement (prepared once per
 * connection); a client on a shared session (the CLI on the service's embedded database) must not.
 */
export function postgresDatabase(sql: postgres.Sql, opts: { prepare: boolean }): Database {
  const db = drizzlePostgres(sql, { schema }) as unknown as Db;
  const runner = (client: postgres.Sql | postgres.TransactionSql): SqlRunner => ({
    rows: (text, params) => client.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: opts.prepare }) as never,
  });
  return {
    kind: 'postgres',
    db,
    sql,
    ...runner(sql),
    listen: async (channel, onNotify) => {
      const { unlisten } = await sql.listen(channel, () => onNotify());
      return unlisten;
    },
    transaction: (fn) => driverTransaction(sql, opts.prepare, fn),
    close: () => sql.end({ timeout: 5 }),
  };
}

/**
 * A transaction through postgres.js's own begin(), which survives a connection that dies midway
 * (it rejects the transaction; the pool replaces the connection). Sending BEGIN with the first
 * statement and COMMIT with the last, on a reserved connection, saved two round trips a command
 * but leaked the connection from the pool whenever Postgres closed it mid-transaction (a query on
 * a closed reserved connection parks it as busy for good): docs/DECISIONS.md.
 */
function driverTransaction<T>(sql: postgres.Sql, prepare: boolean, fn: (tx: SqlTx) => Promise<T>): Promise<T> {
  return sql.begin(async (t) => {
    let txDb: Tx | undefined;
    return fn({
      rows: (text, params) => t.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare }) as unknown as Promise<never>,
      get db() {
        return (txDb ??= builderOn(new PostgresJsSession(t as never, dialect, undefined)));
      },
    });
  }) as Promise<T>;
}
