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
}

/** Rows of a raw `execute`, whichever driver ran it (postgres.js gives an array, PGlite `{rows}`). */
export async function query<T extends Record<string, unknown>>(ex: Executor, statement: SQL): Promise<T[]> {
  const result = (await ex.execute(statement)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.databaseUrl) {
    const sql = postgres(options.databaseUrl, {
      max: options.maxConnections ?? 10,
      onnotice: () => {},
      // int8 ids stay well inside 2^53, so raw queries read them as numbers, as drizzle does
      types: { int8: { to: 20, from: [20], serialize: (v: number) => String(v), parse: (v: string) => Number(v) } },
      connection: { application_name: 'fulfil' },
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
