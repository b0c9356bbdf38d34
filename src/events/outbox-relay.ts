import type { RedisConnection } from '@fulfil/client/transport';
import type { Logger } from 'pino';
import type { Database, SqlRunner } from '../db/client.ts';
import { countTransitions } from '../telemetry/metrics-registry.ts';
import { EventsStream, type EventsStreamOptions } from './events-stream.ts';
import { appendToFeeds } from './feed-positions.ts';

/** Any constant shared by every relay of a database: only one relays a batch at a time. */
const RELAY_LOCK_KEY = 7_245_301_978;
/** The channel that wakes the relay: workers notify it after committing events (relay-wake.ts). */
export const OUTBOX_CHANNEL = 'fulfil_outbox';
/** How long a notification waits for more before the relay takes the batch. */
const GATHER_MS = 25;

const TRY_LOCK = `select pg_try_advisory_xact_lock($1::bigint) as locked`;
// Marked relayed in the transaction that hands the batch on (feeds, webhook deliveries, the
// events stream): if Redis refuses, the transaction rolls back and the rows stay unrelayed.
const TAKE_BATCH = `
update outbox set relayed_at = now()
where id in (select id from outbox where relayed_at is null order by id limit $1::int)
returning id, event_id as "eventId", topic, payload`;
const PRUNE = `delete from outbox where relayed_at is not null and relayed_at < now() - make_interval(secs => $1::int)`;

export interface RelayOptions {
  database: Database;
  connection: RedisConnection;
  prefix: string;
  log: Logger;
  batchSize?: number;
  /** The safety poll: a relay is woken by NOTIFY, and looks anyway this often. */
  intervalMs?: number;
  /** Relayed rows are kept this long for inspection, then pruned. */
  keepRelayedMs?: number;
  /** Sees each batch inside the relay's transaction and again after its commit (webhook fan-out). */
  follower?: RelayFollower<unknown> | undefined;
  /** The events stream in Redis (EVENTS_STREAM=on); none: the relay writes no event to Redis. */
  stream?: EventsStreamOptions | undefined;
}

/** Work that must happen exactly when events leave the outbox (in the transaction) and then once they have (after it). */
export interface RelayFollower<T> {
  inTransaction(tx: SqlRunner, messages: readonly unknown[]): Promise<T>;
  afterCommit(result: T): Promise<void>;
}

/**
 * Moves outbox rows on, oldest first: to the brokerages' feeds, to the webhook fan-out, and to
 * the events stream when there is one. A worker that committed events
 * wakes the relay (relay-wake.ts: directly when it runs in the same process, else NOTIFY on
 * OUTBOX_CHANNEL); a slow poll covers a notification lost while the listening connection was down. Only one process runs a relay at a time (ActiveRelay,
 * relay-leadership.ts); each batch is still one transaction holding a transaction-level advisory
 * lock, so even two relays briefly running at once relay one batch at a time, never overtaking.
 * A crash between Redis taking the batch and the commit publishes it again with the same event
 * ids: delivery is at least once and never out of order within an order (the order lock in the
 * handlers makes outbox ids follow commit order per order).
 */
export class OutboxRelay {
  private readonly stream: EventsStream | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private gathering: NodeJS.Timeout | undefined;
  /** Woken while a batch ran: run again right after it. */
  private again = false;
  private stopped = false;
  private lastPrune = 0;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(private readonly opts: RelayOptions) {
    this.stream = opts.stream ? new EventsStream(opts.connection, opts.prefix, opts.stream) : undefined;
  }

  async start(): Promise<void> {
    this.stopped = false;
    try {
      this.unlisten = await this.opts.database.listen(OUTBOX_CHANNEL, () => this.notified());
    } catch (err) {
      // Without notifications the safety poll still relays everything, only later.
      this.opts.log.warn({ err }, 'outbox relay cannot listen for notifications; polling only');
    }
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.gathering);
    // Stopping: a wake-up lost now changes nothing, and the listening connection closes with the database.
    await this.unlisten?.().catch(() => {});
    await this.running;
  }

  /** Relays one batch; returns how many events it published (0 when another relay holds the lock). */
  async relayOnce(): Promise<number> {
    const batchSize = this.opts.batchSize ?? 200;
    const follower = this.opts.follower;
    const batch = await this.opts.database.transaction(async (tx: SqlRunner) => {
      const [lock] = await tx.rows<{ locked: boolean }>(TRY_LOCK, [RELAY_LOCK_KEY]);
      if (!lock?.locked) return { n: 0 };
      const rows = await tx.rows<{ id: number; eventId: string; topic: string; payload: unknown }>(TAKE_BATCH, [batchSize]);
      if (rows.length === 0) return { n: 0 };
      rows.sort((a, b) => a.id - b.id);
      await appendToFeeds(
        tx,
        rows.map((r) => r.eventId),
      );
      const followed = follower
        ? await follower.inTransaction(
            tx,
            rows.map((r) => r.payload),
          )
        : undefined;
      await this.stream?.publish(rows.map((r) => r.payload as { event_id: string }));
      countTransitions(rows.map((r) => r.payload));
      return { n: rows.length, followed };
    });
    if (follower && batch.n > 0) await follower.afterCommit(batch.followed);
    return batch.n;
  }

  /**
   * Events were committed (a NOTIFY, or a command of this process: relay-wake.ts). It starts a
   * short gathering window rather than a batch at once: relaying each event in its own
   * transaction would cost a transaction per command next to the commands themselves. Events
   * wait GATHER_MS at most.
   */
  notified(): void {
    if (this.stopped || this.gathering) return;
    this.gathering = setTimeout(() => {
      this.gathering = undefined;
      this.wake();
    }, GATHER_MS);
  }

  private wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.tick().finally(() => (this.running = undefined));
  }

  private async tick(): Promise<void> {
    let next = this.opts.intervalMs ?? 5_000;
    try {
      do {
        this.again = false;
        const n = await this.relayOnce();
        // A full batch: there is probably more.
        if (n >= (this.opts.batchSize ?? 200)) this.again = true;
      } while (this.again && !this.stopped);
      await this.prune();
    } catch (err) {
      this.opts.log.warn({ err }, 'outbox relay failed; retrying');
      next = Math.min(next, 2_000);
    }
    if (this.stopped) return;
    // Woken while pruning: go again at once.
    this.timer = setTimeout(() => this.wake(), this.again ? 0 : next);
  }

  private async prune(): Promise<void> {
    const keep = this.opts.keepRelayedMs ?? 7 * 24 * 3600 * 1000;
    if (Date.now() - this.lastPrune < 60_000) return;
    this.lastPrune = Date.now();
    await this.opts.database.rows(PRUNE, [Math.round(keep / 1000)]);
  }
}
