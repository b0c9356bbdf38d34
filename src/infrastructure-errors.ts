import { OperatorError } from './operator-error.ts';

/**
 * Whether an error means Postgres or Redis is unreachable (answered as 503, retried in workers),
 * as opposed to a bug. Connection-level error codes of Node, postgres.js and ioredis.
 */
export function isInfrastructureError(err: unknown, depth = 0): boolean {
  // drizzle wraps driver errors ("Failed query: …") with the driver's error as the cause
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  if (cause && depth < 5 && isInfrastructureError(cause, depth + 1)) return true;
  const e = err as { code?: string; name?: string; message?: string } | undefined;
  if (!e) return false;
  const code = String(e.code ?? '');
  if (
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      'ENOTFOUND',
      'EHOSTUNREACH',
      'CONNECTION_CLOSED',
      'CONNECTION_ENDED',
      'CONNECTION_DESTROYED',
      'CONNECT_TIMEOUT',
      'CLIENT_DEADLINE',
    ].includes(code)
  )
    return true;
  // SQLSTATE class 08 (connection exception), 57P0x (admin shutdown, cannot connect now), 53300
  // (too many connections), 57014 (statement_timeout fired), 25P03 (idle-in-transaction timeout)
  if (/^08/.test(code) || /^57P0/.test(code) || ['53300', '57014', '25P03'].includes(code)) return true;
  if (e.name === 'MaxRetriesPerRequestError') return true;
  const msg = String(e.message ?? '');
  return /Stream isn't writeable|enableOfflineQueue|Connection is closed/.test(msg);
}

/** Postgres or Redis could not be reached while starting: the process exits with this one line. */
export class DependencyUnreachable extends OperatorError {
  override name = 'DependencyUnreachable';
}
