import path from 'node:path';
import type { Results } from '@electric-sql/pglite';
import { PgDatabase, PgDialect } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite, PgliteSession } from 'drizzle-orm/pglite';
import type { Database, Db, EmbeddedDatabase, SqlRunner, Tx } from './database.ts';
import { EmbeddedThread } from './embedded-client.ts';
import { lockEmbeddedDatabase } from './pglite-lock.ts';
import { makePrivateDir } from '../private-dir.ts';
import * as schema from './schema.ts';

// The embedded (PGlite) side of client.ts, in a module of its own so that only a process that
// uses it loads it (see embedded.ts). PGlite itself runs in a thread (embedded-client.ts); what
// drizzle and the raw runner need of it here is `query` and `transaction`, which cross over as
// messages.

const dialect = new PgDialect();

export const DEFAULT_GUEST_STATEMENT_MS = 5_000;

/** The part of PGlite's interface drizzle-orm/pglite calls (session.js): query, and transaction for db.transaction. */
interface QueryClient {
  query(text: string, params?: unknown[], options?: { rowMode?: 'array' | 'object'; parsers?: object }): Promise<Results>;
}
interface RemoteClient extends QueryClient {
  transaction<T>(fn: (tx: QueryClient) => Promise<T>): Promise<T>;
}

function remoteClient(thread: EmbeddedThread): RemoteClient {
  const on = (tx: number | undefined): QueryClient => ({
    query: (text, params = [], options = {}) =>
      thread.call({
        op: 'query',
        ...(tx === undefined ? {} : { tx }),
        text,
        params,
        ...(options.rowMode ? { rowMode: options.rowMode } : {}),
        // drizzle passes its own parsers (keep dates as text): the thread has the same set
        rawDates: options.parsers !== undefined,
      }) as Promise<Results>,
  });
  let nextTx = 1;
  return {
    ...on(undefined),
    async transaction(fn) {
      const tx = nextTx++;
      await thread.call({ op: 'begin', tx });
      let result;
      try {
        result = await fn(on(tx));
      } catch (err) {
        // The caller gets the first error; a rollback that fails means PGlite's thread is gone.
        await thread.call({ op: 'rollback', tx }).catch(() => {});
        throw err;
      }
      await thread.call({ op: 'commit', tx });
      return result;
    },
  };
}

export async function openPgliteDatabase(dir: string, opts: { guestStatementMs?: number } = {}): Promise<Database> {
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
    const thread = await EmbeddedThread.open(dir, { guestStatementMs: opts.guestStatementMs ?? DEFAULT_GUEST_STATEMENT_MS });
    repair();
    const client = remoteClient(thread);
    const db = drizzlePglite({ client: client as never, schema }) as unknown as Db;
    const runner = (c: QueryClient): SqlRunner => ({
      rows: async (text, params) => (await c.query(text, params as unknown[])).rows as never,
    });
    const embedded: EmbeddedDatabase = {
      thread,
      exec: async (text) => (await thread.call({ op: 'exec', text })) as Results[],
      migrate: async (folder, lockKey) => void (await thread.call({ op: 'migrate', folder, lockKey })),
    };
    return {
      kind: 'pglite',
      db,
      embedded,
      ...runner(client),
      listen: (channel, onNotify, onListen) => thread.listen(channel, onNotify, onListen),
      transaction: (fn) =>
        client.transaction((t) => {
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
        }),
      close: () => thread.close().then(repair).finally(unlock),
    };
  } catch (err) {
    unlock();
    throw err;
  }
}
