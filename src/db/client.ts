import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
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

export interface Database {
  readonly kind: 'postgres' | 'pglite';
  readonly db: Db;
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
        application_name: 'fulfil',
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
    });
    const db = drizzlePostgres(sql, { schema }) as unknown as Db;
    return { kind: 'postgres', db, sql, close: () => sql.end({ timeout: 5 }) };
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
    return { kind: 'pglite', db, pglite, close: () => pglite.close().finally(unlock) };
  } catch (err) {
    unlock();
    throw err;
  }
}
