import type { RedisConnection } from '../redis/connections.ts';
import { Unavailable, shardCountsKey } from '@fulfil/contract';

/** A producer whose shard count the deployment's workers do not consume: its jobs would wait forever. */
export class ShardCountMismatch extends Unavailable {
  constructor(
    readonly configured: number,
    readonly consumed: readonly number[],
  ) {
    super(
      `this producer routes commands over ${configured} shard(s) (COMMAND_SHARDS), but the workers consume ` +
        `${consumed.join(' and ')} (Redis key …:command-shards): set COMMAND_SHARDS to match; the command was not taken`,
    );
  }
}

/**
 * Checks a producer's shard count against the counts the workers announce in the well-known key,
 * without a round trip per command: the key is read once, then again in the background at most
 * every `refreshMs`; a mismatch is read once more before it is believed. An empty or unreadable
 * key is no verdict (a fresh Redis before its first worker, or Redis away: enqueue fails on its own).
 */
export class ShardCountGuard {
  private known: { counts: number[]; at: number } | undefined;
  private loading: Promise<number[] | undefined> | undefined;

  constructor(
    private readonly connection: RedisConnection,
    private readonly prefix: string,
    readonly shards: number,
    private readonly refreshMs = 5_000,
  ) {}

  async check(): Promise<void> {
    let counts = this.known?.counts ?? (await this.load());
    if (this.known && Date.now() - this.known.at > this.refreshMs) void this.load();
    if (counts === undefined || counts.length === 0 || counts.includes(this.shards)) return;
    counts = await this.load();
    if (counts !== undefined && counts.length > 0 && !counts.includes(this.shards)) throw new ShardCountMismatch(this.shards, counts);
  }

  private load(): Promise<number[] | undefined> {
    this.loading ??= this.connection
      .hkeys(shardCountsKey(this.prefix))
      .then(
        (fields) => {
          const counts = fields.map(Number).filter((n) => Number.isInteger(n) && n > 0);
          this.known = { counts, at: Date.now() };
          return counts;
        },
        () => undefined,
      )
      .finally(() => (this.loading = undefined));
    return this.loading;
  }
}
