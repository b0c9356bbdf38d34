import { Cluster } from 'ioredis';
import type { RedisConnection } from '@fulfil/client/transport';
import { RateLimited } from '../http-errors.ts';
import { counterKey } from '@fulfil/contract';

/** How often a process sends its counts and reads the blocked addresses while it serves requests. */
export const LIMIT_SYNC_MS = 200;

const WINDOW_MS = 60_000;
const KEY_TTL_MS = 61_000;
const windowOf = (now: number) => Math.floor(now / WINDOW_MS);

/** A credential's requests in one window: counted here and not yet sent, and the last total Redis gave. */
interface Tally {
  window: number;
  pending: number;
  known: number;
}

/**
 * Limits over fixed one-minute windows, shared by every API process through Redis: requests per
 * credential, and failed authentications per client address (checked before the credential
 * lookup, so guessing tokens or signatures costs the guesser, not Postgres).
 *
 * Nothing here costs a round trip per request while a credential is far from its limit:
 * - A request is counted in the process and the counts go to Redis in one batch every
 *   LIMIT_SYNC_MS. Past half the limit (by what this process knows), every request is counted in
 *   Redis before it is answered, so a credential is refused exactly at its limit; the batching can
 *   let through at most what other processes counted in their last interval.
 * - A failed authentication is counted in Redis at once. The address that reaches the limit is
 *   blocked in this process at once and appended to the window's blocked list; each batch reads
 *   what was appended since the last, so every other process refuses the address within one
 *   interval, and a flood of blocked addresses costs each process only the new ones.
 *
 * When Redis cannot answer the limits are skipped, not enforced: an outage must not turn into
 * 429s (commands answer 503 on their own when Redis is gone). Unsent counts wait for the next batch.
 */
export class RateLimiter {
  private readonly tallies = new Map<string, Tally>();
  /** The window's blocked addresses this process knows, and how many of the window's list it has read. */
  private blocked = { window: -1, addresses: new Set<string>(), read: 0 };
  private timer: NodeJS.Timeout | undefined;
  private used = false;
  private syncing: Promise<void> | undefined;

  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    private readonly limits: { perCredential: number; authFailuresPerAddress: number },
    private readonly syncMs = LIMIT_SYNC_MS,
  ) {}

  /** Counts one request of this credential; 429 past the limit. */
  async check(token: string, now = Date.now()): Promise<void> {
    const limit = this.limits.perCredential;
    // 0 means off: no key is counted and no request is refused.
    if (limit <= 0) return;
    this.wake();
    const window = windowOf(now);
    const key = counterKey(this.prefix, 'ratelimit', token, window);
    let tally = this.tallies.get(key);
    if (!tally) this.tallies.set(key, (tally = { window, pending: 0, known: 0 }));
    if (tally.known + tally.pending + 1 <= limit / 2) {
      tally.pending++;
      return;
    }
    const add = tally.pending + 1;
    tally.pending = 0;
    let count: number;
    try {
      count = await this.redis.incrby(key, add);
      if (count === add) await this.redis.pexpire(key, KEY_TTL_MS);
    } catch {
      tally.pending += add;
      return;
    }
    tally.known = Math.max(tally.known, count);
    if (count > limit) throw this.limited(now);
  }

  /** 429 when this address already failed authentication too often in this window. */
  async checkAuthFailures(address: string, now = Date.now()): Promise<void> {
    // 0 means off. Without this, a count of 0 against a limit of 0 refused every request.
    if (this.limits.authFailuresPerAddress <= 0) return;
    this.wake();
    if (this.isBlocked(address, windowOf(now))) throw this.limited(now);
  }

  async recordAuthFailure(address: string, now = Date.now()): Promise<void> {
    const limit = this.limits.authFailuresPerAddress;
    if (limit <= 0) return;
    const window = windowOf(now);
    const key = counterKey(this.prefix, 'authfail', address, window);
    try {
      // The window's first count sets the expiry. Should that second call be lost (a crash in
      // between), the key still names its minute and is never counted again.
      const failures = await this.redis.incr(key);
      if (failures === 1) await this.redis.pexpire(key, KEY_TTL_MS);
      if (failures < limit) return;
      this.block(window, [address]);
      // Appended, so each process reads only what is new since its last batch. An address is
      // appended again only by a process that had not heard of it yet: a few times at most.
      const blockedKey = this.blockedKey(window);
      await this.redis.rpush(blockedKey, address);
      await this.redis.pexpire(blockedKey, KEY_TTL_MS);
    } catch {
      // Redis cannot answer: the failure goes uncounted, as every limit is skipped then.
    }
  }

  /** Sends what is still counted here; the process stops syncing. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.syncing;
    await this.sync();
  }

  /** Sends the counts and reads the blocked addresses now (tests use it to skip the wait). */
  sync(): Promise<void> {
    this.syncing ??= this.send().finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  private wake(): void {
    this.used = true;
    if (this.timer) return;
    this.timer = setInterval(() => {
      // Idle for a whole interval with nothing left to send: stop until the next request.
      if (!this.used && ![...this.tallies.values()].some((t) => t.pending > 0)) {
        clearInterval(this.timer);
        this.timer = undefined;
        return;
      }
      this.used = false;
      void this.sync();
    }, this.syncMs);
    this.timer.unref();
    // Waking from idle: what was blocked meanwhile is read at once, not an interval later.
    void this.sync();
  }

  private isBlocked(address: string, window: number): boolean {
    return this.blocked.window === window && this.blocked.addresses.has(address);
  }

  private block(window: number, addresses: Iterable<string>): void {
    if (this.blocked.window !== window) this.blocked = { window, addresses: new Set(), read: 0 };
    for (const a of addresses) this.blocked.addresses.add(a);
  }

  private readFrom(window: number): number {
    return this.blocked.window === window ? this.blocked.read : 0;
  }

  private blockedKey(window: number): string {
    return counterKey(this.prefix, 'authblocked', 'addresses', window);
  }

  private async send(): Promise<void> {
    const window = windowOf(Date.now());
    const sent: Array<[string, Tally, number]> = [];
    for (const [key, tally] of this.tallies) {
      if (tally.pending > 0) {
        sent.push([key, tally, tally.pending]);
        tally.pending = 0;
      } else if (tally.window < window) {
        this.tallies.delete(key);
      }
    }
    const readBlocked = this.limits.authFailuresPerAddress > 0;
    const from = this.readFrom(window);
    if (sent.length === 0 && !readBlocked) return;
    let replies: unknown[];
    try {
      replies = await this.batch([
        ...sent.flatMap(([key, , add]): Array<[string, ...Array<string | number>]> => [
          ['incrby', key, add],
          ['pexpire', key, KEY_TTL_MS],
        ]),
        ...(readBlocked ? [['lrange', this.blockedKey(window), from, -1] as [string, string, number, number]] : []),
      ]);
    } catch {
      for (const [, tally, add] of sent) tally.pending += add;
      return;
    }
    sent.forEach(([, tally], i) => (tally.known = Math.max(tally.known, Number(replies[2 * i]))));
    if (readBlocked) {
      const fresh = (replies[replies.length - 1] as string[] | null) ?? [];
      this.block(window, fresh);
      // Another batch of the same window may have read further meanwhile: keep the furthest.
      this.blocked.read = Math.max(this.blocked.read, from + fresh.length);
    }
  }

  /** One write to Redis; a cluster's pipeline cannot span slots, so there the commands go side by side. */
  private async batch(commands: Array<[string, ...Array<string | number>]>): Promise<unknown[]> {
    if (this.redis instanceof Cluster) {
      return Promise.all(commands.map(([name, ...args]) => this.redis.call(name, ...args)));
    }
    const results = (await this.redis.pipeline(commands).exec()) ?? [];
    return results.map(([err, value]) => {
      if (err) throw err;
      return value;
    });
  }

  private limited(now: number): RateLimited {
    return new RateLimited(Math.max(1, Math.ceil((WINDOW_MS - (now % WINDOW_MS)) / 1000)));
  }
}
