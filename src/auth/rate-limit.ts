import type { RedisConnection } from '../redis/connections.ts';
import { RateLimited } from '../errors.ts';

/**
 * Limits over fixed one-minute windows, counted in Redis so every API process shares them:
 * requests per credential, and failed authentications per client address (checked before the
 * credential lookup, so guessing tokens or signatures costs the guesser, not Postgres).
 * When Redis cannot answer the limits are skipped, not enforced: an outage must not turn into
 * 429s (commands answer 503 on their own when Redis is gone).
 */
export class RateLimiter {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    private readonly limits: { perCredential: number; authFailuresPerAddress: number },
  ) {}

  /** Counts one request of this credential; 429 past the limit. */
  async check(token: string, now = Date.now()): Promise<void> {
    // 0 means off: no key is counted and no request is refused.
    if (this.limits.perCredential <= 0) return;
    const count = await this.count(`ratelimit:${token}`, this.limits.perCredential, now, 'incr');
    if (count > this.limits.perCredential) throw this.limited(now);
  }

  /** 429 when this address already failed authentication too often in this window. */
  async checkAuthFailures(address: string, now = Date.now()): Promise<void> {
    // 0 means off. Without this, a count of 0 against a limit of 0 refused every request.
    if (this.limits.authFailuresPerAddress <= 0) return;
    const count = await this.count(`authfail:${address}`, this.limits.authFailuresPerAddress, now, 'get');
    if (count >= this.limits.authFailuresPerAddress) throw this.limited(now);
  }

  async recordAuthFailure(address: string, now = Date.now()): Promise<void> {
    await this.count(`authfail:${address}`, this.limits.authFailuresPerAddress, now, 'incr');
  }

  private async count(name: string, limit: number, now: number, op: 'incr' | 'get'): Promise<number> {
    if (limit <= 0) return 0;
    const key = `${this.prefix}:${name}:${Math.floor(now / 60_000)}`;
    try {
      if (op === 'get') return Number((await this.redis.get(key)) ?? 0);
      const [[, n]] = (await this.redis.multi().incr(key).pexpire(key, 61_000).exec()) as [[null, number]];
      return n;
    } catch {
      return 0;
    }
  }

  private limited(now: number): RateLimited {
    return new RateLimited(Math.max(1, Math.ceil((60_000 - (now % 60_000)) / 1000)));
  }
}
