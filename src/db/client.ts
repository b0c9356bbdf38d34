import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { SQL } from 'drizzle-orm';
import { PgDatabase, PgDialect, type PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { PgliteSession } from 'drizzle-orm/pglite';
import { PostgresJsSession } from 'drizzle-orm/postgres-js';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { lockEmbeddedDatabase } from './pglite-lock.ts';
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
  /** Server-side statement_timeout and idle_in_transaction_session_timeout of every connection; 0 or absent: none. */
  statementTimeoutMs?: number;
  idleInTransactionTimeoutMs?: number;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
  /** Called with every statement's text before it is sent (postgres.js only): statement budgets in tests. */
  onStatement?: (text: string) => void;
}

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
    const sql = postgres(options.databaseUrl, {
      max: options.maxConnections ?? 10,
      onnotice: () => {},
      // int8 ids stay well inside 2^53, so raw queries read them as numbers, as drizzle does
      types: { int8: { to: 20, from: [20], serialize: (v: number) => String(v), parse: (v: string) => Number(v) } },
      // Startup parameters: the limits hold on every connection of the pool from its first statement.
      connection: {
        application_name: options.applicationName ?? 'fulfil',
        ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
        ...(options.idleInTransactionTimeoutMs ? { idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs } : {}),
      },
      ...(options.onStatement ? { debug: (_c: number, text: string) => options.onStatement!(text) } : {}),
    });
    const db = drizzlePostgres(sql, { schema }) as unknown as Db;
    const runner = (client: postgres.Sql | postgres.TransactionSql): SqlRunner => ({
      rows: (text, params) => client.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true }) as never,
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
      transaction: (fn) =>
        sql.begin((t) => {
          let txDb: Tx | undefined;
          return fn({ ...runner(t), get db() { return (txDb ??= builderOn(new PostgresJsSession(t as never, dialect, undefined))); } });
        }) as never,
      close: () => sql.end({ timeout: 5 }),
    };
  }
  const dir = options.pgliteDir ?? 'memory://';
  let unlock = () => {};
  if (!dir.startsWith('memory://')) {
    mkdirSync(path.dirname(path.resolve(dir)), { recursive: true });
    unlock = lockEmbeddedDatabase(path.resolve(dir));
  }
  try {
    const pglite = await PGlite.create(dir);
    const db = drizzlePglite(pglite, { schema }) as unknown as Db;
    const runner = (client: Pick<PGlite, 'query'>): SqlRunner => ({
      rows: async (text, params) => (await client.query(text, params as unknown[])).rows as never,
    });
    return {
      kind: 'pglite',
      db,
      pglite,
      ...runner(pglite),
      listen: async (channel, onNotify) => {
        const unlisten = await pglite.listen(channel, () => onNotify());
        return () => unlisten();
      },
      transaction: (fn) =>
        pglite.transaction((t) => {
          let txDb: Tx | undefined;
          return fn({ ...runner(t), get db() { return (txDb ??= builderOn(new PgliteSession(t as never, dialect, undefined))); } });
        }) as Promise<never>,
      close: () => pglite.close().finally(unlock),
    };
  } catch (err) {
    unlock();
    throw err;
  }
}
