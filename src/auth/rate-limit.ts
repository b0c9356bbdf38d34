import type { Redis } from 'ioredis';
import { RateLimited } from '../errors.ts';

/**
 * Per-credential limit over a fixed one-minute window, counted in Redis so every API process
 * shares it. When Redis cannot answer the limit is skipped, not enforced: an outage must not
 * turn into 429s (commands answer 503 on their own when Redis is gone).
 */
export class RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly perMinute: number,
  ) {}

  async check(token: string, now = Date.now()): Promise<void> {
    if (this.perMinute <= 0) return;
    const window = Math.floor(now / 60_000);
    const key = `${this.prefix}:ratelimit:${token}:${window}`;
    let count: number;
    try {
      const [[, incr]] = (await this.redis.multi().incr(key).pexpire(key, 61_000).exec()) as [[null, number]];
      count = incr;
    } catch {
      return;
    }
    if (count > this.perMinute) throw new RateLimited(Math.max(1, Math.ceil(((window + 1) * 60_000 - now) / 1000)));
  }
}
