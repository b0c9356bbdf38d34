import type { Database } from '../db/client.ts';
import type { IndexQuery } from './index-query.ts';
import { inventoryPageSql, inventoryRowsSql } from './index-sql.ts';

/**
 * Runs a multi-statement text (see index-sql.ts) as one simple-protocol message and returns the
 * rows of its last statement. postgres.js answers one result per statement, PGlite's exec too.
 */
export async function runInventorySql<T>(database: Database, text: string): Promise<T[]> {
  if (database.sql) {
    const results = (await database.sql.unsafe(text)) as unknown as T[][];
    return results[results.length - 1]!;
  }
  const results = await database.embedded!.exec(text);
  return results[results.length - 1]!.rows as T[];
}

/**
 * The response body of one inventory page, as JSON text produced by Postgres. Holds one page in
 * memory; the cost depends on the page size only (keyset on an index, never OFFSET).
 */
export async function readInventoryPage(database: Database, q: IndexQuery): Promise<string> {
  const [row] = await runInventorySql<{ body: string }>(database, inventoryPageSql(q));
  return row!.body;
}

/**
 * The same body as the bytes Postgres sent, for writing straight to a socket: on postgres.js the
 * text is never decoded into a JavaScript string only to be encoded again. UTF-8 either way.
 */
export async function readInventoryPageBytes(database: Database, q: IndexQuery): Promise<Buffer | string> {
  if (!database.sql) return readInventoryPage(database, q);
  const results = (await database.sql.unsafe(inventoryPageSql(q)).raw()) as unknown as Buffer[][][];
  return results[results.length - 1]![0]![0]!;
}

export interface InventoryRow {
  /** The keyset value: remote_id in default mode, service id in detailed mode. */
  key: number;
  json: string;
}

/** The same page as rows of JSON text, for writers that emit one record at a time (export). */
export async function readInventoryRows(database: Database, q: IndexQuery): Promise<InventoryRow[]> {
  // The simple protocol answers in text, so bigint keys arrive as strings on postgres.js.
  const rows = await runInventorySql<{ k: number | string; j: string }>(database, inventoryRowsSql(q));
  return rows.map((r) => ({ key: Number(r.k), json: r.j }));
}

/**
 * Every record of an office from the query's cursor on, page by page. Paging in default mode
 * with state ALL is allowed here: I2 constrains HTTP callers, and the unique index serves it.
 */
export async function* iterateInventory(database: Database, first: IndexQuery): AsyncGenerator<InventoryRow[], void, void> {
  let q = first;
  for (;;) {
    const rows = await readInventoryRows(database, q);
    if (rows.length > 0) yield rows;
    if (rows.length < q.items) return;
    q = { ...q, cursor: rows[rows.length - 1]!.key + 1 };
  }
}
