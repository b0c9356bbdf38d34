import path from 'node:path';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { assertDriverPatched } from '../db/driver-patch.ts';
import { EmbeddedDatabaseBusy } from '../db/pglite-lock.ts';
import { openEmbeddedGuest } from '../db/pglite-socket.ts';
import { openMigratedDatabase, pgliteDir } from '../service/database.ts';
import { runningService } from '../service/service-address.ts';
import { CliFailure } from './command.ts';

export interface CliDatabase {
  database: Database;
  /** Borrowed from a running service's embedded PGlite (which migrated it at start). */
  borrowed: boolean;
}

/**
 * The database a CLI command works on: DATABASE_URL's; else, while the service runs on the
 * embedded database, that database through the service's socket; else the embedded database itself.
 * Every one of them goes through postgres.js but the last, so the driver's patch is checked first.
 */
export async function openCliDatabase(config: Config): Promise<CliDatabase> {
  assertDriverPatched();
  // The service of this DATA_DIR runs on Postgres: the embedded database here would be another,
  // empty one, and what the command wrote would reach nobody (D-160).
  if (!config.DATABASE_URL && runningService(config.DATA_DIR)?.queues?.database === 'postgres') {
    throw new CliFailure(
      `the service of DATA_DIR=${path.resolve(config.DATA_DIR)} runs on Postgres: set DATABASE_URL as the service has it`,
    );
  }
  if (!config.DATABASE_URL) {
    const guest = await openEmbeddedGuest(pgliteDir(config));
    if (guest) return { database: guest, borrowed: true };
  }
  try {
    return { database: await openMigratedDatabase(config), borrowed: false };
  } catch (err) {
    if (!(err instanceof EmbeddedDatabaseBusy)) throw err;
    throw new CliFailure(
      `the embedded database in ${pgliteDir(config)} is held by another process that does not lend it to the CLI ` +
        '(a service still starting, or one of an older version). Try again in a moment, or stop that process.',
    );
  }
}

/** Runs fn with the command's database open, and closes it however fn ends. */
export async function withCliDatabase<T>(config: Config, fn: (database: Database, borrowed: boolean) => Promise<T>): Promise<T> {
  const { database, borrowed } = await openCliDatabase(config);
  try {
    return await fn(database, borrowed);
  } finally {
    await database.close();
  }
}
