import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { proxiedDatabaseUrl } from '../support/tcp-proxy.ts';

/**
 * The client-side deadline (src/db/pipelined-transaction.ts). A link that stops passing the
 * client's bytes halfway through a message leaves Postgres waiting on the client mid-statement,
 * where neither statement_timeout nor the idle-in-transaction timeout fires: the call must fail
 * within the deadline, the connection must be abandoned (its backend ends), and the pool must not
 * lose a slot to it.
 */
describe('a statement Postgres never receives whole', () => {
  let t: TestDatabase;
  let db: Database;
  let proxy: Awaited<ReturnType<typeof proxiedDatabaseUrl>>['proxy'];
  let admin: postgres.Sql;
  const APP = `deadline-${process.pid}`;
  const DEADLINE = 800;

  beforeAll(async () => {
    t = await createTestDatabase();
    const via = await proxiedDatabaseUrl(t.url);
    proxy = via.proxy;
    db = await openDatabase({
      databaseUrl: via.url,
      maxConnections: 2,
      applicationName: APP,
      timeouts: { connectMs: 2_000, statementMs: 30_000, idleInTransactionMs: 30_000, idleMs: 0, clientDeadlineMs: DEADLINE },
    });
    admin = postgres(t.url, { max: 1, onnotice: () => {} });
    await db.rows('create table deadline_probe (id int primary key)', []);
  });
  afterAll(async () => {
    await db?.close();
    await admin?.end();
    await proxy?.close();
    await t?.drop();
  });

  const backends = async () => Number((await admin`select count(*)::int as n from pg_stat_activity where application_name = ${APP}`)[0]!.n);

  it('fails a transaction and a single statement within the deadline, abandons their connections, keeps the pool whole', async () => {
    // Both connections open and warm.
    await Promise.all([
      db.transaction((tx) => tx.finish('insert into deadline_probe values ($1::int)', [1])),
      db.transaction((tx) => tx.finish('insert into deadline_probe values ($1::int)', [2])),
    ]);
    expect(await backends()).toBe(2);

    proxy.stall();
    const started = performance.now();
    const [inTx, alone] = await Promise.allSettled([
      db.transaction(async (tx) => {
        await tx.rows('insert into deadline_probe values ($1::int)', [3]);
        return tx.finish('insert into deadline_probe values ($1::int)', [4]);
      }),
      db.rows('select pg_sleep(0)', []),
    ]);
    const waited = performance.now() - started;
    expect(inTx).toMatchObject({ status: 'rejected', reason: { code: 'CLIENT_DEADLINE' } });
    expect(alone).toMatchObject({ status: 'rejected', reason: { code: 'CLIENT_DEADLINE' } });
    expect(waited).toBeLessThan(DEADLINE * 4);

    // The stalled backends go once their sockets are gone; nothing of the transaction committed.
    for (let i = 0; i < 50 && (await backends()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await backends()).toBe(0);
    expect((await admin`select id from deadline_probe order by id`).map((r) => r.id)).toEqual([1, 2]);

    // The pool has both of its connections again: more work than it has slots, all of it done.
    const ids = [5, 6, 7, 8, 9, 10];
    await Promise.all(ids.map((id) => db.transaction((tx) => tx.finish('insert into deadline_probe values ($1::int)', [id]))));
    await Promise.all(ids.map((id) => db.rows('select $1::int as id', [id])));
    expect((await admin`select count(*)::int as n from deadline_probe`)[0]!.n).toBe(8);
    expect(await backends()).toBeLessThanOrEqual(2);
  }, 30_000);

  it('leaves a connection that Postgres closed mid-transaction out of the pool, and the pool working', async () => {
    await expect(
      db.transaction(async (tx) => {
        const [row] = await tx.rows<{ pid: number }>('select pg_backend_pid() as pid', []);
        await admin`select pg_terminate_backend(${row!.pid})`;
        await new Promise((r) => setTimeout(r, 200));
        return tx.finish('insert into deadline_probe values ($1::int)', [11]);
      }),
    ).rejects.toMatchObject({ code: expect.stringMatching(/^CONNECTION_|^57P01$/) });
    // Three times the pool's size, one after another: a connection parked as busy would hang them.
    for (let i = 0; i < 6; i++) await db.transaction((tx) => tx.finish('select 1', []));
    expect((await admin`select count(*)::int as n from deadline_probe where id = 11`)[0]!.n).toBe(0);
  }, 30_000);

  it('gives up waiting for a connection after the deadline, and hands a late one back to the pool', async () => {
    const one = await openDatabase({
      databaseUrl: t.url,
      maxConnections: 1,
      timeouts: { connectMs: 2_000, statementMs: 30_000, idleInTransactionMs: 30_000, idleMs: 0, clientDeadlineMs: DEADLINE },
    });
    try {
      // The only connection is busy for three deadlines (a slow caller, not a stuck statement).
      const holder = one.transaction(async (tx) => {
        await tx.rows('select 1', []);
        await new Promise((r) => setTimeout(r, DEADLINE * 3));
        return tx.finish('select 2', []);
      });
      await new Promise((r) => setTimeout(r, 50));
      const started = performance.now();
      await expect(one.transaction((tx) => tx.finish('select 3', []))).rejects.toMatchObject({ code: 'CLIENT_DEADLINE' });
      expect(performance.now() - started).toBeLessThan(DEADLINE * 2.5);
      await holder;
      // The connection the late reservation received went back: the pool still serves.
      for (let i = 0; i < 3; i++) await one.transaction((tx) => tx.finish('select 4', []));
    } finally {
      await one.close();
    }
  }, 30_000);
});
