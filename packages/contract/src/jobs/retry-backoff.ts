/**
 * How long a command's job waits before its next attempt after an infrastructure error: doubling
 * from the job's `backoff.delay`, never more than RETRY_DELAY_CAP_MS, with jitter so a crowd of
 * jobs that failed together does not retry together. Uncapped doubling left jobs waiting minutes
 * after an outage of seconds (docs/RELIABILITY.md).
 */
export const RETRY_BACKOFF_TYPE = 'capped-exponential';
export const RETRY_DELAY_CAP_MS = 5_000;

export function retryDelay(attemptsMade: number, baseMs: number, capMs = RETRY_DELAY_CAP_MS): number {
  const full = Math.min(capMs, baseMs * 2 ** Math.max(0, attemptsMade - 1));
  return Math.round(full / 2 + Math.random() * (full / 2));
}
