import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';

/**
 * Migrates the embedded database, in the thread that runs PGlite (embedded-thread.ts). One PGlite
 * instance is one backend; the advisory lock is taken for symmetry with Postgres and costs nothing.
 */
export async function migratePgliteDatabase(pglite: PGlite, migrationsFolder: string, lockKey: number): Promise<void> {
  const db = drizzlePglite(pglite);
  await db.execute(sql`select pg_advisory_lock(${lockKey})`);
  try {
    await migratePglite(db, { migrationsFolder });
  } finally {
    await db.execute(sql`select pg_advisory_unlock(${lockKey})`);
  }
}
