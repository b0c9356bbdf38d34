import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { startService } from '../../src/service.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startTestService } from '../support/service.ts';

describe('Postgres connection settings', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('the service opens DATABASE_POOL_SIZE connections at most, with the configured timeouts', async () => {
    const t = await startTestService({
      db,
      roles: { api: false, worker: true },
      env: { DATABASE_POOL_SIZE: '3', DATABASE_STATEMENT_TIMEOUT_MS: '4321', DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '5432' },
    });
    try {
      const sql = t.service.database.sql!;
      expect(sql.options.max).toBe(3);
      const [row] =
        await sql`select current_setting('statement_timeout') as st, current_setting('idle_in_transaction_session_timeout') as it`;
      expect(row).toEqual({ st: '4321ms', it: '5432ms' });
    } finally {
      await t.stop();
    }
  });

  it('a statement over the limit and a transaction left idle are ended by the server', async () => {
    const database: Database = await openDatabase({
      databaseUrl: db.url,
      maxConnections: 2,
      timeouts: { connectMs: 5_000, statementMs: 200, idleInTransactionMs: 300, idleMs: 0 },
    });
    try {
      await expect(database.rows('select pg_sleep(2)', [])).rejects.toMatchObject({ code: '57014' });
      const idle = database.transaction(async (tx) => {
        await tx.rows('select 1', []);
        await new Promise((r) => setTimeout(r, 1_000));
        await tx.rows('select 1', []);
      });
      await expect(idle).rejects.toThrow();
      // The pool survives both: the next statement runs.
      expect(await database.rows<{ n: number }>('select 1 as n', [])).toEqual([{ n: 1 }]);
    } finally {
      await database.close();
    }
  });

  it('refuses a read replica without a primary', async () => {
    const config = loadConfig({ DATABASE_READ_URL: db.url, DATA_DIR: '/nonexistent-fulfil-dir', LOG_LEVEL: 'silent' });
    await expect(startService(config, { api: true, worker: true })).rejects.toThrow(/DATABASE_READ_URL: a replica needs its primary/);
  });
});
