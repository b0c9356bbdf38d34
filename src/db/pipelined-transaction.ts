import type postgres from 'postgres';

/**
 * What the client-side deadline throws: the statement did not complete in time, so its connection
 * was abandoned (destroyed, never reused) and the call failed. An infrastructure error, like a
 * closed connection: HTTP answers 503, a worker's attempt fails and the job is tried again.
 */
export class DatabaseDeadline extends Error {
  readonly code = 'CLIENT_DEADLINE';
  constructor(ms: number) {
    super(`a database call did not complete within ${ms} ms (a connection it was on is abandoned)`);
  }
}

/** A postgres.js query as the driver builds it; `abandon` is added by patches/postgres+3.4.9.patch. */
type Pending = postgres.PendingQuery<postgres.Row[]> & { abandon?: () => void; cancel(): unknown };

/** The driver's codes for a connection that is gone: nothing more may be sent on it. */
const GONE = new Set(['CONNECTION_CLOSED', 'CONNECTION_DESTROYED', 'CONNECTION_ENDED', 'CLIENT_DEADLINE']);
export const connectionGone = (err: unknown) => GONE.has(String((err as { code?: unknown })?.code));

/**
 * Waits for one statement, at most `ms` (0: no deadline). Postgres can sit waiting on the client
 * in the middle of a statement (after a restart, a half-written message): then neither
 * statement_timeout nor the idle-in-transaction timeout fires and, without this, the caller
 * would wait for good. On expiry the socket the statement went out on is destroyed (the driver
 * fails what was in flight on it and opens a fresh connection for the next query) or, if it was
 * still queued for a connection, it is cancelled.
 */
export function bounded<T>(query: Pending, ms: number): Promise<T> {
  if (ms <= 0) return query as unknown as Promise<T>;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      if (query.abandon) query.abandon();
      // Best effort: the caller is answered with the deadline either way.
      else void Promise.resolve(query.cancel()).catch(() => {});
      reject(new DatabaseDeadline(ms));
    }, ms);
    (query as unknown as Promise<T>).then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e: unknown) => (clearTimeout(timer), reject(e)),
    );
  });
}

/**
 * A reserved connection, waited for at most `ms` (0: no limit): when every connection of the pool
 * is stuck, the attempt fails rather than waits for good. A connection that arrives after the
 * caller gave up goes straight back to the pool.
 */
function reserveWithin(sql: postgres.Sql, ms: number): Promise<postgres.ReservedSql> {
  const reserving = sql.reserve();
  if (ms <= 0) return reserving;
  return new Promise((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(new DatabaseDeadline(ms));
    }, ms);
    reserving.then(
      (c) => (late ? c.release() : (clearTimeout(timer), resolve(c))),
      (e: unknown) => (clearTimeout(timer), reject(e)),
    );
  });
}

export interface PipelinedTx {
  rows<T extends object>(text: string, params: readonly unknown[]): Promise<T[]>;
  finish<T extends object>(text: string, params: readonly unknown[]): Promise<T[]>;
  /** The reserved connection, for the query builder on cold paths (not bounded per statement). */
  readonly connection: postgres.ReservedSql;
}

/**
 * One transaction on a reserved connection, with BEGIN sent together with the first statement
 * and COMMIT together with the last (`finish`): postgres.js writes what is issued in one tick
 * together and Postgres answers in order, so a transaction costs two round trips fewer than the
 * driver's begin(), which waits for BEGIN, and for the last statement before COMMIT. Should the
 * last statement fail, Postgres turns the COMMIT sent behind it into a rollback.
 *
 * The helper knows when its connection died (a closed-connection error, or its own deadline):
 * it then sends nothing more on it and does not hand it back (the driver's close path already
 * did, patched so that a later release or query on the reservation cannot park it as busy:
 * patches/postgres+3.4.9.patch). Every statement, BEGIN/COMMIT/ROLLBACK included, has the deadline.
 */
export async function pipelinedTransaction<T>(
  sql: postgres.Sql,
  o: { prepare: boolean; deadlineMs: number },
  fn: (tx: PipelinedTx) => Promise<T>,
): Promise<T> {
  const c = await reserveWithin(sql, o.deadlineMs);
  let ended = false;
  let gone = false;
  const send = <R>(text: string, params: readonly unknown[]): Promise<R> => {
    const q = c.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: o.prepare }).execute() as unknown as Pending;
    return bounded<R>(q, o.deadlineMs).catch((err: unknown) => {
      if (connectionGone(err)) gone = true;
      throw err;
    });
  };
  const run = <R>(text: string, params: readonly unknown[]): Promise<R> => {
    if (ended) return Promise.reject(new Error('transaction already finished'));
    if (gone) return Promise.reject(Object.assign(new Error('the transaction lost its connection'), { code: 'CONNECTION_CLOSED' }));
    return send<R>(text, params);
  };
  const begin = run('begin', []);
  begin.catch(() => {}); // its failure also fails the first statement behind it, which is awaited
  const tx: PipelinedTx = {
    rows: (text, params) => run(text, params),
    async finish(text, params) {
      const last = run<never>(text, params);
      const commit = run<{ command?: string }>('commit', []);
      ended = true;
      const [rows, committed] = await Promise.allSettled([last, commit]);
      if (rows.status === 'rejected') throw rows.reason;
      if (committed.status === 'rejected') throw committed.reason;
      // COMMIT in a transaction that failed earlier answers ROLLBACK without an error.
      if ((committed.value as unknown as { command?: string }).command === 'ROLLBACK') throw new Error('transaction rolled back at commit');
      return rows.value;
    },
    connection: c,
  };
  try {
    const result = await fn(tx);
    await begin;
    if (!ended) {
      ended = true;
      await send('commit', []);
    }
    return result;
  } catch (err) {
    if (!ended && !gone) {
      ended = true;
      // The caller gets the first error; a rollback that fails means the connection is gone, and
      // Postgres rolls back a transaction whose session ends.
      await send('rollback', []).catch(() => {});
    }
    throw err;
  } finally {
    // A connection that died went back through the driver's close path; one that is alive
    // and idle (committed or rolled back) goes back to the pool.
    if (!gone) c.release();
  }
}
