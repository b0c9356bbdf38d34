import type { RedisConnection } from '../redis/connections.ts';
import { Unavailable } from '@fulfil/contract';

export function unavailable(detail: string): Unavailable {
  return new Unavailable(`Redis unavailable (${detail}); the command was not sent, nothing changed`);
}

/**
 * Fail fast: a ready connection is used at once; one still making its first connection is
 * given timeoutMs; one that lost Redis answers Unavailable at once (no offline queue).
 */
export async function whenConnected(c: RedisConnection, timeoutMs: number): Promise<void> {
  if (c.status === 'ready') return;
  if (c.status === 'wait') c.connect().catch(() => {});
  else if (c.status !== 'connecting' && c.status !== 'connect') throw unavailable(`Redis connection is ${c.status}`);
  await new Promise<void>((resolve, reject) => {
    const done = (err?: Error) => {
      clearTimeout(timer);
      c.off('ready', onReady);
      c.off('error', onError);
      c.off('end', onEnd);
      if (err) reject(err);
      else resolve();
    };
    const onReady = () => done();
    const onError = (err: Error) => done(unavailable(err.message));
    const onEnd = () => done(unavailable('Redis connection ended'));
    const timer = setTimeout(() => done(unavailable(`Redis did not answer within ${timeoutMs} ms`)), timeoutMs);
    c.once('ready', onReady);
    c.once('error', onError);
    c.once('end', onEnd);
  });
}

/** How p went within ms: resolved, rejected, or still pending ('late'). Never rejects. */
export async function outcomeWithin(p: Promise<unknown> | undefined, ms: number): Promise<'ok' | 'error' | 'late'> {
  if (!p) return 'ok';
  let timer: NodeJS.Timeout | undefined;
  const settled = p.then(
    () => 'ok' as const,
    () => 'error' as const,
  );
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), ms)));
  const outcome = await Promise.race([settled, late]);
  clearTimeout(timer);
  return outcome;
}
