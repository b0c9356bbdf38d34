import postgres from 'postgres';
import { DEFAULT_TIMEOUTS, openDatabase, type Database } from '../src/db/client.ts';
import { migrateDatabase } from '../src/db/migrate.ts';

/** Drops and creates a benchmark database; refuses any whose name does not say it is for this. */
export async function recreateBenchDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  if (!name.includes('bench')) throw new Error(`refusing to recreate database "${name}": its name must contain "bench"`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`drop database if exists ${name} with (force)`);
    await sql.unsafe(`create database ${name}`);
  } finally {
    await sql.end();
  }
}

/**
 * A fresh, migrated bench database filled by `fill`, closed again; logs what was loaded and how
 * long it took. Loading runs without a statement timeout: a million rows take longer than the
 * service's own limit allows.
 */
export async function loadBenchDatabase(url: string, what: string, fill: (database: Database) => Promise<void>): Promise<void> {
  const t0 = performance.now();
  await recreateBenchDatabase(url);
  const database = await openDatabase({ databaseUrl: url, maxConnections: 2, timeouts: { ...DEFAULT_TIMEOUTS, statementMs: 0 } });
  try {
    await migrateDatabase(database, url);
    await fill(database);
  } finally {
    await database.close();
  }
  process.stderr.write(`loaded ${what} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}
