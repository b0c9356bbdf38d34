import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, types, type Transaction } from '@electric-sql/pglite';
import type { Call, Event, Request, ThreadOptions } from './embedded-protocol.ts';
import { toWireError } from './embedded-protocol.ts';
import { GuestQueue } from './guest-queue.ts';
import { migratePgliteDatabase } from './pglite-migrate.ts';

/**
 * The thread that runs the embedded PGlite (started by embedded-client.ts). PGlite executes a
 * statement synchronously on its thread's event loop, and its statement_timeout cannot fire
 * (its timers are that loop's): a guest's `select pg_sleep(30)` would hold whichever loop runs
 * it. Here it holds only this thread's, so the service's HTTP and workers go on answering, and
 * the service thread can stop a statement that runs too long by terminating this thread.
 */

const port = parentPort!;
const { dir } = workerData as ThreadOptions;
const post = (event: Event) => port.postMessage(event);

/** drizzle-orm/pglite's parsers (session.js): dates, intervals and numeric arrays stay text. */
const keep = (value: string) => value;
const DRIZZLE_PARSERS = Object.fromEntries(
  [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182].map((t) => [t, keep]),
);

interface OpenTx {
  t: Transaction;
  commit: () => void;
  rollback: (err: Error) => void;
  done: Promise<unknown>;
}

let pglite: PGlite;
try {
  pglite = await PGlite.create(dir);
} catch (err) {
  post({ type: 'open-failed', error: toWireError(err) });
  throw err;
}
const txs = new Map<number, OpenTx>();
const unlisteners = new Map<string, () => Promise<void>>();
const guests = new GuestQueue(pglite, {
  onBusy: (handlerId) => post({ type: 'guest-busy', handlerId }),
  onIdle: () => post({ type: 'guest-idle' }),
  onStall: (handlerId) => post({ type: 'guest-stall', handlerId }),
});

async function handle(id: number, r: Request): Promise<unknown> {
  switch (r.op) {
    case 'query': {
      const on = r.tx === undefined ? pglite : txOf(r.tx);
      const options = { ...(r.rowMode ? { rowMode: r.rowMode } : {}), ...(r.rawDates ? { parsers: DRIZZLE_PARSERS } : {}) };
      return on.query(r.text, r.params, options);
    }
    case 'exec':
      return (r.tx === undefined ? pglite : txOf(r.tx)).exec(r.text);
    case 'begin':
      return begin(r.tx);
    case 'commit':
    case 'rollback': {
      const tx = txs.get(r.tx);
      if (!tx && r.op === 'rollback') return undefined; // begun before a restart: already gone
      if (!tx) throw lostTransaction();
      txs.delete(r.tx);
      if (r.op === 'commit') {
        tx.commit();
        await tx.done;
      } else {
        tx.rollback(new Error('rolled back'));
        // It settles with the rollback's own reason: the rollback asked for is done.
        await tx.done.catch(() => {});
      }
      return undefined;
    }
    case 'listen':
      if (!unlisteners.has(r.channel)) {
        unlisteners.set(r.channel, await pglite.listen(r.channel, (payload) => post({ type: 'notify', channel: r.channel, payload })));
      }
      return undefined;
    case 'unlisten': {
      const unlisten = unlisteners.get(r.channel);
      unlisteners.delete(r.channel);
      await unlisten?.();
      return undefined;
    }
    case 'migrate':
      return migratePgliteDatabase(pglite, r.folder, r.lockKey);
    case 'guest':
      // The chunk is a view of PGlite's whole WebAssembly memory: posted as is, all of it would be copied.
      return guests.enqueue(r.handlerId, r.message, (data) => {
        const own = data.slice();
        port.postMessage({ type: 'guest-data', id, data: own } satisfies Event, [own.buffer]);
      });
    case 'guest-clear':
      guests.clearQueueForHandler(r.handlerId);
      return undefined;
    case 'guest-end':
      return guests.clearTransactionIfNeeded(r.handlerId);
    case 'close':
      await pglite.close();
      return undefined;
  }
}

function txOf(tx: number): Transaction {
  const open = txs.get(tx);
  if (!open) throw lostTransaction();
  return open.t;
}

/** A transaction begun on the thread before a restart: like a connection lost by a Postgres restart. */
function lostTransaction(): Error {
  return Object.assign(new Error('the transaction was lost: the embedded database restarted'), { code: '57P01' });
}

/** Opens a transaction that stays open until the service thread commits or rolls it back. */
function begin(tx: number): Promise<void> {
  return new Promise((begun, failed) => {
    let commit!: () => void;
    let rollback!: (err: Error) => void;
    const done = pglite.transaction(
      (t) =>
        new Promise<void>((resolve, reject) => {
          commit = resolve;
          rollback = reject;
          txs.set(tx, { t, commit, rollback, done });
          begun();
        }),
    );
    done.catch((err: unknown) => failed(err)); // BEGIN itself failed (no-op once begun)
  });
}

port.on('message', ({ id, request }: Call) => {
  handle(id, request).then(
    (value) => post({ type: 'reply', id, ok: true, value }),
    (err: unknown) => post({ type: 'reply', id, ok: false, error: toWireError(err) }),
  );
});
post({ type: 'ready' });
