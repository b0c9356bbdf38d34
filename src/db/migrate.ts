import path from 'node:path';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { PROJECT_ROOT } from '../project-root.ts';
import type { Database } from './client.ts';

export const MIGRATIONS_FOLDER = path.join(PROJECT_ROOT, 'drizzle');

/** Any constant; it only has to be the same in every process that migrates this database. */
const MIGRATION_LOCK_KEY = 7_245_301_977;

/**
 * Applies pending migrations under a session advisory lock, because drizzle's migrator takes
 * none and several processes (api, workers, the one-shot migrate) may start at once. The lock
 * and the migration share one dedicated connection so the lock really covers the work.
 */
export async function migrateDatabase(database: Database, databaseUrl?: string): Promise<void> {
  if (database.embedded) {
    await database.embedded.migrate(MIGRATIONS_FOLDER, MIGRATION_LOCK_KEY);
    return;
  }
  if (!databaseUrl) throw new Error('migrateDatabase: a postgres database needs its URL');
  const client = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    try {
      await migratePostgres(drizzlePostgres(client), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await client`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
    }
  } finally {
    await client.end({ timeout: 5 });
  }
}
