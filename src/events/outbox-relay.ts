import type { RedisConnection } from '@fulfil/client/transport';
import type { Logger } from 'pino';
import type { Database, SqlTx } from '../db/client.ts';
import { sentAhead } from '../db/sent-ahead.ts';
import { countTransitions } from '../telemetry/metrics-registry.ts';
import { EventsStream, type EventsStreamOptions } from './events-stream.ts';
import { eventMessageOf } from '../db/sql/append-event.ts';
import { feedNotifyOver, placeWaitingEvents } from './feed-positions.ts';

/** Any constant shared by every relay of a database: only one relays a batch at a time. */
const RELAY_LOCK_KEY = 7_245_301_978;
/** The channel that wakes the relay: workers notify it after committing events (relay-wake.ts). */
export const OUTBOX_CHANNEL = 'fulfil_outbox';
/** How long a notification waits for more before the relay takes the batch. */
const GATHER_MS = 25;

// Blocking, not a try: the batch statement goes out behind it in the same write, and must not run
// without the lock. A second relay (two run only briefly, relay-leadership.ts) waits for the
// holder's batch to commit; its statement then starts with a snapshot that sees those rows relayed.
// The lock cannot be taken by the batch statement itself: its snapshot would predate the lock.
const LOCK = `select pg_advisory_xact_lock($1::bigint)`;

/**
 * The whole batch in one statement (one round trip with BEGIN, the lock and, without the events
 * stream, COMMIT): the oldest waiting feed rows get their positions (feed-positions.ts), their
 * events are read by primary key and their messages built from the rows (eventMessageOf), and
 * fanned out to webhook endpoints. Placed in the transaction that hands the batch on: if a step,
 * or Redis for the events stream, refuses, the transaction rolls back and the rows still wait.
 * The event is looked up on its own (a lateral subquery on its key, kept apart by its LIMIT):
 * flattened into a join, the planner hashed all of shipment_events for a batch of a few rows
 * while its statistics still saw the table small, a whole-table scan per batch growing with the
 * table (4.9 ms a batch of 9 events after 1,200 commands, against 1.1 ms; docs/BENCHMARKS.md).
 */
function batchStatement(follower: RelayFollower<unknown> | undefined): string {
  return `
with ${placeWaitingEvents('$1::int')},
relayed as (
  select p.position, e.id as event_row_id, e.event_id, e.order_id, e.seq, e.kind, e.at, p.seller_brokerage_id,
    p.buyer_brokerage_id, ${eventMessageOf('e')} as payload
  from placed p cross join lateral (select * from shipment_events s where s.id = p.event_row_id limit 1) e)${
    follower ? `,\nfollowed as (${follower.over('relayed')})` : ''
  }
select
  (select json_agg(payload order by position) from relayed) as events,
  ${follower ? `(select json_agg(out order by (out->>'deliveryId')::bigint) from followed)` : 'null'} as followed,
  (${feedNotifyOver('relayed')}) as notified`;
}

interface BatchRow {
  /** The payloads of the events relayed, in feed order; null: none. */
  events: unknown[] | null;
  followed: unknown[] | null;
}

export interface RelayOptions {
  database: Database;
  connection: RedisConnection;
  prefix: string;
  log: Logger;
  batchSize?: number;
  /** The safety poll: a relay is woken by NOTIFY, and looks anyway this often. */
  intervalMs?: number;
  /** Writes its rows in each batch's statement, and sees them again after its commit (webhook fan-out). */
  follower?: RelayFollower<unknown> | undefined;
  /** The events stream in Redis (EVENTS_STREAM=on); none: the relay writes no event to Redis. */
  stream?: EventsStreamOptions | undefined;
}

/** Work that must happen exactly when events leave the outbox (in the batch statement) and then once they have (after its commit). */
export interface RelayFollower<T> {
  /**
   * A data-modifying statement over the relation `relayed` (the batch's events: feed `position`,
   * `event_row_id`, `event_id`, `order_id`, `seq`, `kind`, `at`, the order's parties
   * `seller_brokerage_id` and `buyer_brokerage_id`, and the message as jsonb `payload`), run as a
   * CTE of the batch statement; each row it returns is one json `out`.
   */
  over(relayed: string): string;
  /** The rows `over` returned, once the batch has committed. */
  afterCommit(rows: readonly T[]): Promise<void>;
}

/**
 * Moves waiting events on (the outbox: feed rows with no position yet), oldest first: to the
 * brokerages' feeds (a position), to the webhook fan-out, and to
 * the events stream when there is one. A worker that committed events
 * wakes the relay (relay-wake.ts: directly when it runs in the same process, else NOTIFY on
 * OUTBOX_CHANNEL); a slow poll covers a notification lost while the listening connection was down. Only one process runs a relay at a time (ActiveRelay,
 * relay-leadership.ts); each batch is still one transaction holding a transaction-level advisory
 * lock, so even two relays briefly running at once relay one batch at a time, never overtaking.
 * A crash between Redis taking the batch and the commit publishes it again with the same event
 * ids: delivery is at least once and never out of order within an order (the order lock in the
 * handlers makes event row ids follow commit order per order).
 */
export class OutboxRelay {
  private readonly stream: EventsStream | undefined;
  private readonly statement: string;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private gathering: NodeJS.Timeout | undefined;
  /** Woken while a batch ran: run again right after it. */
  private again = false;
  private stopped = false;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(private readonly opts: RelayOptions) {
    this.stream = opts.stream ? new EventsStream(opts.connection, opts.prefix, opts.stream) : undefined;
    this.statement = batchStatement(opts.follower);
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

  /** Relays one batch; returns how many events it published. */
  async relayOnce(): Promise<number> {
    const batchSize = this.opts.batchSize ?? 200;
    const stream = this.stream;
    const { events, followed } = await this.opts.database.transaction(async (tx: SqlTx) => {
      // Its failure fails the batch statement behind it, which is awaited.
      void sentAhead(tx.rows(LOCK, [RELAY_LOCK_KEY]));
      if (!stream) return (await tx.finish<BatchRow>(this.statement, [batchSize]))[0]!;
      // Redis takes the batch before the commit: the stream is the one step that needs the rows first.
      const row = (await tx.rows<BatchRow>(this.statement, [batchSize]))[0]!;
      if (row.events) await stream.publish(row.events as { event_id: string }[]);
      return row;
    });
    if (!events) return 0;
    countTransitions(events);
    if (this.opts.follower && followed) await this.opts.follower.afterCommit(followed);
    return events.length;
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
    } catch (err) {
      this.opts.log.warn({ err }, 'outbox relay failed; retrying');
      next = Math.min(next, 2_000);
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => this.wake(), next);
  }
}
