import path from 'node:path';
import { loadSecretKey, SecretBox } from '../auth/secret-box.ts';
import type { Config } from '../config.ts';
import { openDatabase, type Database } from '../db/client.ts';
import { migrateDatabase } from '../db/migrate.ts';
import { DependencyUnreachable, isInfrastructureError } from '../infrastructure-errors.ts';

export function pgliteDir(config: Config): string {
  return path.join(config.DATA_DIR, 'pglite');
}

/** Opens the database the configuration names (PGlite under DATA_DIR when none) and migrates it. */
export async function openMigratedDatabase(config: Config, opts: { onStatement?: (text: string) => void } = {}): Promise<Database> {
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    pgliteDir: pgliteDir(config),
    guestStatementMs: config.EMBEDDED_GUEST_STATEMENT_MS,
    ...poolOptions(config),
    ...opts,
  }).catch((err: unknown) => {
    throw unreachablePostgres(config.DATABASE_URL, err);
  });
  try {
    await migrateDatabase(database, config.DATABASE_URL);
  } catch (err) {
    await database.close();
    throw unreachablePostgres(config.DATABASE_URL, err);
  }
  return database;
}

/** A connection error while opening Postgres, said in one line that names the server (never its password). */
function unreachablePostgres(databaseUrl: string | undefined, err: unknown): unknown {
  if (!databaseUrl || !isInfrastructureError(err)) return err;
  const url = new URL(databaseUrl);
  return new DependencyUnreachable(`Postgres at ${url.hostname}:${url.port || 5432} could not be reached (${(err as Error).message})`, {
    cause: err,
  });
}

/** Pool size and server-side limits of a process's Postgres connections (docs/SCALING.md). */
export function poolOptions(config: Config) {
  return {
    maxConnections: config.DATABASE_POOL_SIZE,
    timeouts: {
      connectMs: config.DATABASE_CONNECT_TIMEOUT_MS,
      statementMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
      idleInTransactionMs: config.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      clientDeadlineMs: config.DATABASE_CLIENT_DEADLINE_MS,
      idleMs: config.DATABASE_IDLE_TIMEOUT_MS,
    },
  };
}

export function secretBoxFor(config: Config): SecretBox {
  return SecretBox.fromKey(
    loadSecretKey({ configured: config.FULFIL_SECRET_KEY, dataDir: config.DATA_DIR, production: config.NODE_ENV === 'production' }),
  );
}

/**
 * Readiness of the database: it answers, and writes there would not fail. A session left
 * read-only (a guest's SET on the embedded database, a primary demoted to a standby) would turn
 * every command into a 500 while a bare `select 1` still said ready.
 */
export async function databaseWritable(database: Database): Promise<void> {
  const [row] = await database.rows<{ ro: string }>(`select current_setting('transaction_read_only') as ro`, []);
  if (row?.ro !== 'off') throw new Error('the database session is read-only: commands could not write');
}
