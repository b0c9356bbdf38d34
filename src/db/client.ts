import type { SQL } from 'drizzle-orm';
import { PgDatabase, PgDialect } from 'drizzle-orm/pg-core';
import type { PgliteSession } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres, PostgresJsSession } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import type { Database, Db, Executor, Tx } from './database.ts';
import { loadEmbedded } from './embedded.ts';
import { bounded, pipelinedTransaction } from './pipelined-transaction.ts';
import * as schema from './schema.ts';

export type { Database, Db, EmbeddedDatabase, Executor, Schema, SqlRunner, SqlTx, Tx } from './database.ts';

export interface OpenOptions {
  databaseUrl?: string | undefined;
  /** Where PGlite keeps its files when there is no DATABASE_URL; `memory://` for none. */
  pgliteDir?: string;
  maxConnections?: number;
  timeouts?: DatabaseTimeouts;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
  /** How long a CLI guest's statement may run on the embedded database (EMBEDDED_GUEST_STATEMENT_MS). */
  guestStatementMs?: number;
  /** Called with every statement's text before it is sent (postgres.js only): statement budgets in tests. */
  onStatement?: (text: string) => void;
}

/** Every connection has them (milliseconds; 0 turns one off). */
export interface DatabaseTimeouts {
  connectMs: number;
  statementMs: number;
  idleInTransactionMs: number;
  idleMs: number;
  /**
   * Client-side deadline of every raw statement and transaction step (0 or absent: none): past it
   * the connection is abandoned and the call fails (src/db/pipelined-transaction.ts). Longer than
   * statementMs, so that Postgres's own limit answers first for a statement that is merely slow.
   */
  clientDeadlineMs?: number;
}

/** Defaults for callers without a configuration (tests, tools); the service passes its config's. */
export const DEFAULT_TIMEOUTS: DatabaseTimeouts = {
  connectMs: 5_000,
  statementMs: 15_000,
  idleInTransactionMs: 15_000,
  idleMs: 60_000,
  clientDeadlineMs: 20_000,
};

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
      // connection error that callers turn into 503 (HTTP) or a retry (workers); the driver's
      // patch (patches/, docs/RELIABILITY.md) makes that safe. The driver's default backoff grows as
      // 3^n/100 s up to 20 s, so a restart of a few seconds left the service waiting far longer
      // than Postgres was away; retrying a refused connect is cheap, so it is capped at 1 s.
      backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
      ...(options.onStatement ? { debug: (_c: number, text: string) => options.onStatement!(text) } : {}),
    });
    return postgresDatabase(sql, { prepare: true, deadlineMs: t.clientDeadlineMs ?? 0 });
  }
  // Loaded only here: the production image has no PGlite and always names a DATABASE_URL.
  const { openPgliteDatabase } = await loadEmbedded(() => import('./pglite-database.ts'));
  return openPgliteDatabase(options.pgliteDir ?? 'memory://', {
    ...(options.guestStatementMs !== undefined ? { guestStatementMs: options.guestStatementMs } : {}),
  });
}

/**
 * A Database over a postgres.js client. `prepare` names every raw statement (prepared once per
 * connection); a client on a shared session (the CLI on the service's embedded database) must not.
 * `deadlineMs` bounds every raw statement and transaction step on the client side.
 */
export function postgresDatabase(sql: postgres.Sql, opts: { prepare: boolean; deadlineMs?: number }): Database {
  const db = drizzlePostgres(sql, { schema }) as unknown as Db;
  const deadlineMs = opts.deadlineMs ?? 0;
  return {
    kind: 'postgres',
    db,
    sql,
    rows: (text, params) =>
      bounded(sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: opts.prepare }).execute() as never, deadlineMs),
    listen: async (channel, onNotify, onListen) => {
      const { unlisten } = await sql.listen(channel, (payload) => onNotify(payload), onListen);
      return unlisten;
    },
    transaction: (fn) =>
      pipelinedTransaction(sql, { prepare: opts.prepare, deadlineMs }, (t) => {
        let txDb: Tx | undefined;
        return fn({
          rows: t.rows,
          finish: t.finish,
          get db() {
            return (txDb ??= builderOn(new PostgresJsSession(t.connection as never, dialect, undefined)));
          },
        });
      }),
    // By the time the database closes, HTTP and workers have stopped: a statement still out is one
    // that will not complete (after a Postgres restart, a connection can wait on a reply that
    // never comes). One second for the rest, then every connection is destroyed, well inside the
    // shutdown step's own deadline.
    close: () => sql.end({ timeout: 1 }),
  };
}
