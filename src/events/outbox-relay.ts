import { Queue } from 'bullmq';
import { and, asc, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { query, type Database } from '../db/client.ts';
import { outbox } from '../db/schema.ts';
import { EVENTS_QUEUE } from '../queues/job-map.ts';
import { countTransitions } from '../ops/metrics.ts';

/** Any constant shared by every relay of a database: only one relays a batch at a time. */
const RELAY_LOCK_KEY = 7_245_301_978;

export interface RelayOptions {
  database: Database;
  connection: Redis;
  prefix: string;
  log: Logger;
  batchSize?: number;
  intervalMs?: number;
  /** Relayed rows are kept this long for inspection, then pruned. */
  keepRelayedMs?: number;
}

/**
 * Moves outbox rows to the fulfil-events queue, oldest first. Each batch is one transaction
 * holding a transaction-level advisory lock, so with several worker processes exactly one
 * relays at a time and batches never overtake each other. A row is marked relayed only after
 * Redis took its job, in the same transaction: a crash in between re-publishes the batch,
 * under the same job ids (event ids), so delivery is at least once and never out of order
 * within an order (the order lock in the handlers makes outbox ids follow commit order per order).
 */
export class OutboxRelay {
  readonly queue: Queue;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private lastPrune = 0;

  constructor(private readonly opts: RelayOptions) {
    this.queue = new Queue(EVENTS_QUEUE, {
      prefix: opts.prefix,
      connection: opts.connection,
      defaultJobOptions: { removeOnComplete: { age: 7 * 24 * 3600 }, removeOnFail: { age: 14 * 24 * 3600 } },
    });
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.queue.close();
  }

  /** Relays one batch; returns how many events it published (0 when another relay holds the lock). */
  async relayOnce(): Promise<number> {
    const batchSize = this.opts.batchSize ?? 200;
    return this.opts.database.db.transaction(async (tx) => {
      const [lock] = await query<{ locked: boolean }>(tx, sql`select pg_try_advisory_xact_lock(${RELAY_LOCK_KEY}) as locked`);
      if (!lock?.locked) return 0;
      const rows = await tx
        .select({ id: outbox.id, eventId: outbox.eventId, topic: outbox.topic, payload: outbox.payload })
        .from(outbox)
        .where(isNull(outbox.relayedAt))
        .orderBy(asc(outbox.id))
        .limit(batchSize);
      if (rows.length === 0) return 0;
      // addBulk is one MULTI: the batch lands in Redis whole and in this order, or not at all.
      await this.queue.addBulk(rows.map((r) => ({ name: r.topic, data: r.payload, opts: { jobId: r.eventId } })));
      await tx.update(outbox).set({ relayedAt: new Date() }).where(inArray(outbox.id, rows.map((r) => r.id)));
      countTransitions(rows.map((r) => r.payload));
      return rows.length;
    });
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => (this.running = undefined));
    }, delay);
  }

  private async tick(): Promise<void> {
    let next = this.opts.intervalMs ?? 200;
    try {
      const n = await this.relayOnce();
      if (n >= (this.opts.batchSize ?? 200)) next = 0; // a full batch: there is probably more
      await this.prune();
    } catch (err) {
      this.opts.log.warn({ err }, 'outbox relay failed; retrying');
      next = 2_000;
    }
    this.schedule(next);
  }

  private async prune(): Promise<void> {
    const keep = this.opts.keepRelayedMs ?? 7 * 24 * 3600 * 1000;
    if (Date.now() - this.lastPrune < 60_000) return;
    this.lastPrune = Date.now();
    await this.opts.database.db
      .delete(outbox)
      .where(and(isNotNull(outbox.relayedAt), lt(outbox.relayedAt, new Date(Date.now() - keep))));
  }
}
