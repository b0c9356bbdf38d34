import { Cluster } from 'ioredis';
import type { RedisConnection } from '../redis/connections.ts';
import { RateLimited } from '../errors.ts';
import { counterKey } from '../queues/placement.ts';

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
    const count = await this.count('ratelimit', token, this.limits.perCredential, now, 'incr');
    if (count > this.limits.perCredential) throw this.limited(now);
  }

  /** 429 when this address already failed authentication too often in this window. */
  async checkAuthFailures(address: string, now = Date.now()): Promise<void> {
    // 0 means off. Without this, a count of 0 against a limit of 0 refused every request.
    if (this.limits.authFailuresPerAddress <= 0) return;
    const count = await this.count('authfail', address, this.limits.authFailuresPerAddress, now, 'get');
    if (count >= this.limits.authFailuresPerAddress) throw this.limited(now);
  }

  /**
   * Both checks of an authenticated request in one round trip: the address's failures (429 at the
   * limit, as checkAuthFailures) and one more request of the credential (as check). Only for a
   * request authenticated without I/O (a cached credential), so a guesser's unknown tokens still
   * meet the failure check before Postgres does.
   */
  async checkRequest(address: string, token: string, now = Date.now()): Promise<void> {
    const { perCredential, authFailuresPerAddress } = this.limits;
    if (perCredential <= 0 || authFailuresPerAddress <= 0) {
      await this.checkAuthFailures(address, now);
      return this.check(token, now);
    }
    const window = Math.floor(now / 60_000);
    const failures = counterKey(this.prefix, 'authfail', address, window);
    const requests = counterKey(this.prefix, 'ratelimit', token, window);
    let failed: number;
    let count: number;
    try {
      // A pipeline is one write; a cluster's pipeline cannot span slots, so there the two go side by side.
      const [f, n] =
        this.redis instanceof Cluster
          ? await Promise.all([this.redis.get(failures), this.redis.incr(requests)])
          : (((await this.redis.pipeline().get(failures).incr(requests).exec()) ?? []).map(([err, v]) => {
              if (err) throw err;
              return v;
            }) as [string | null, number]);
      failed = Number(f ?? 0);
      count = Number(n);
      if (count === 1) await this.redis.pexpire(requests, 61_000);
    } catch {
      return;
    }
    if (failed >= authFailuresPerAddress || count > perCredential) throw this.limited(now);
  }

  async recordAuthFailure(address: string, now = Date.now()): Promise<void> {
    await this.count('authfail', address, this.limits.authFailuresPerAddress, now, 'incr');
  }

  private async count(kind: string, id: string, limit: number, now: number, op: 'incr' | 'get'): Promise<number> {
    if (limit <= 0) return 0;
    const key = counterKey(this.prefix, kind, id, Math.floor(now / 60_000));
    try {
      if (op === 'get') return Number((await this.redis.get(key)) ?? 0);
      // One call per request: the window's first count sets the expiry. Should that second call
      // be lost (a crash in between), the key still names its minute and is never counted again.
      const n = await this.redis.incr(key);
      if (n === 1) await this.redis.pexpire(key, 61_000);
      return n;
    } catch {
      return 0;
    }
  }

  private limited(now: number): RateLimited {
    return new RateLimited(Math.max(1, Math.ceil((60_000 - (now % 60_000)) / 1000)));
  }
}
