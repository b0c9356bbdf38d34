export interface RetryPolicy {
  /** Failing without a break for this long disables the endpoint. */
  windowMs: number;
  baseMs: number;
  maxMs: number;
  /** The longest a receiver's Retry-After is honoured for. */
  retryAfterMaxMs: number;
}

/**
 * Delay before the next attempt after `attempts` failed ones: doubling from baseMs, capped at
 * maxMs, and drawn from the upper half of that so receivers coming back are not hit by every
 * sender at the same instant.
 */
export function retryDelayMs(attempts: number, policy: Pick<RetryPolicy, 'baseMs' | 'maxMs'>, random = Math.random): number {
  const exp = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 40));
  return Math.round(exp / 2 + (random() * exp) / 2);
}
