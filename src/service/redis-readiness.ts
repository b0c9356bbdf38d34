import { DependencyUnreachable } from '../infrastructure-errors.ts';
import type { Logger } from '../logger.ts';
import type { RedisConnection } from '@fulfil/client/transport';
import { redisUrlForLog } from '@fulfil/client/transport';

/** Logs a Redis connection's trouble once per outage instead of once per reconnect attempt. */
export function watchConnection(conn: RedisConnection, log: Logger): void {
  let down = false;
  conn.on('error', (err) => {
    if (!down) log.warn({ err: err.message }, 'redis connection error; reconnecting');
    down = true;
  });
  conn.on('ready', () => {
    if (down) log.info('redis connection back');
    down = false;
  });
}

/** Resolves once the connection is ready; an unreachable Redis ends the start with one line naming it. */
export function waitReady(conn: RedisConnection, url: string, ms: number): Promise<void> {
  if (conn.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    let last = 'no answer';
    const onError = (err: Error) => (last = err.message);
    const timer = setTimeout(() => {
      conn.off('error', onError);
      reject(new DependencyUnreachable(`Redis at ${redisUrlForLog(url)} did not answer within ${ms / 1000} s (${last})`));
    }, ms);
    conn.on('error', onError);
    conn.once('ready', () => {
      clearTimeout(timer);
      conn.off('error', onError);
      resolve();
    });
  });
}
