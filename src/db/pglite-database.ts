import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { PgDatabase, PgDialect } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite, PgliteSession } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { Database, Db, SqlRunner, Tx } from './client.ts';
import { lockEmbeddedDatabase } from './pglite-lock.ts';
import { makePrivateDir } from '../private-dir.ts';
import * as schema from './schema.ts';

// The embedded (PGlite) side of client.ts and migrate.ts, in a module of its own so that only
// a process that uses it loads it (see embedded.ts).

const dialect = new PgDialect();

export async function openPgliteDatabase(dir: string): Promise<Database> {
  let unlock = () => {};
  // PGlite writes its files 0666: the directories keep other users out, files are repaired to 0600
  // at open and close (private-dir.ts).
  let repair = () => {};
  if (!dir.startsWith('memory://')) {
    makePrivateDir(path.dirname(path.resolve(dir)));
    repair = () => makePrivateDir(dir, { recursive: true });
    repair();
    unlock = lockEmbeddedDatabase(path.resolve(dir));
  }
  try {
    const pglite = await PGlite.create(dir);
    repair();
    const db = drizzlePglite(pglite, { schema }) as unknown as Db;
    const runner = (client: Pick<PGlite, 'query'>): SqlRunner => ({
      rows: async (text, params) => (await client.query(text, params as unknown[])).rows as never,
    });
    return {
      kind: 'pglite',
      db,
      pglite,
      ...runner(pglite),
      listen: async (channel, onNotify, onListen) => {
        const unlisten = await pglite.listen(channel, (payload) => onNotify(payload));
        onListen?.(); // one in-process session: it never reconnects
        return () => unlisten();
      },
      transaction: (fn) =>
        pglite.transaction((t) => {
          let txDb: Tx | undefined;
          const builder = () =>
            new PgDatabase(dialect, new PgliteSession(t as never, dialect, undefined) as never, undefined) as unknown as Tx;
          const tx = runner(t);
          return fn({
            ...tx,
            finish: tx.rows,
            get db() {
              return (txDb ??= builder());
            },
          });
        }) as Promise<never>,
      close: () => pglite.close().then(repair).finally(unlock),
    };
  } catch (err) {
    unlock();
    throw err;
  }
}

/** One PGlite instance is one backend; the advisory lock is taken for symmetry and costs nothing. */
export async function migratePgliteDatabase(pglite: PGlite, migrationsFolder: string, lockKey: number): Promise<void> {
  const db = drizzlePglite(pglite);
  await db.execute(sql`select pg_advisory_lock(${lockKey})`);
  try {
    await migratePglite(db, { migrationsFolder });
  } finally {
    await db.execute(sql`select pg_advisory_unlock(${lockKey})`);
  }
}
