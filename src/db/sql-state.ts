/** The SQLSTATE of a Postgres error, also when drizzle wrapped it (as the cause). */
export function sqlStateOf(error: unknown, depth = 0): string | undefined {
  const e = error as { code?: unknown; cause?: unknown } | undefined;
  if (!e || depth > 5) return undefined;
  if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  return sqlStateOf(e.cause, depth + 1);
}

/** Postgres broke a lock cycle by aborting this transaction; run again, it usually goes through. */
export const isDeadlock = (error: unknown) => sqlStateOf(error) === '40P01';

/**
 * Runs `work` again, up to `tries` times in all, while Postgres aborts it to break a deadlock.
 * Only for work that is one transaction (or one statement): an aborted try changed nothing.
 */
export async function retryOnDeadlock<T>(tries: number, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= tries || !isDeadlock(err)) throw err;
    }
  }
}
