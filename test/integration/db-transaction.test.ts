import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * Database.transaction commits whole or not at all, and leaves its connection usable after a
 * failure; the same holds on the embedded PGlite.
 */
describe.each(['postgres', 'pglite'] as const)('transactions on %s', (kind) => {
  let t: TestDatabase | undefined;
  let db: Database;
  const statements: string[] = [];
  beforeAll(async () => {
    if (kind === 'postgres') {
      t = await createTestDatabase();
      db = await openDatabase({ databaseUrl: t.url, maxConnections: 2, onStatement: (s) => statements.push(s) });
    } else {
      db = await openDatabase({ pgliteDir: 'memory://' });
    }
    await db.rows('create table tx_probe (id int primary key)', []);
  });
  afterAll(async () => {
    await db?.close();
    await t?.drop();
  });
  const ids = async () => (await db.rows<{ id: number }>('select id from tx_probe order by id', [])).map((r) => r.id);

  it('commits every statement of the transaction, between one BEGIN and one COMMIT', async () => {
    statements.length = 0;
    const out = await db.transaction(async (tx) => {
      await tx.rows('insert into tx_probe values ($1::int)', [1]);
      return tx.rows<{ id: number }>('insert into tx_probe values ($1::int) returning id', [2]);
    });
    const sent = statements.map((s) => s.split(' ')[0]!.toLowerCase());
    expect(out).toEqual([{ id: 2 }]);
    expect(await ids()).toEqual([1, 2]);
    if (kind === 'postgres') expect(sent).toEqual(['begin', 'insert', 'insert', 'commit']);
  });

  it('rolls everything back when the last statement fails, and says why', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.rows('insert into tx_probe values ($1::int)', [3]);
        return tx.rows('insert into tx_probe values ($1::int)', [1]); // duplicate key
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await ids()).toEqual([1, 2]);
  });

  it('rolls back when the callback throws, and when a statement in the middle fails', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.rows('insert into tx_probe values ($1::int)', [4]);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await expect(
      db.transaction(async (tx) => {
        await tx.rows('insert into tx_probe values ($1::int)', [5]);
        await tx.rows('insert into tx_probe values ($1::int)', [1]);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await ids()).toEqual([1, 2]);
    // The connection is usable again afterwards.
    await db.transaction(async (tx) => void (await tx.rows('insert into tx_probe values ($1::int)', [6])));
    expect(await ids()).toEqual([1, 2, 6]);
  });
});
