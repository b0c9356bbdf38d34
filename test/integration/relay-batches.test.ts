import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxRelay, type RelayFollower } from '../../src/events/outbox-relay.ts';
import { streamMessages } from '../support/events-stream.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { outboxWaiting, writeOutboxEvents } from '../support/outbox-events.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';

// A batch is one statement sent behind a blocking lock (outbox-relay.ts). Two relays run at once
// during a leadership handover; these prove that they then take turns, batch after batch, and that
// no event is relayed twice or skipped, with the events stream (two round trips) and without it (one).

const log = pino({ level: 'silent' });
const EVENTS = 600;

/** Records each batch the relay committed: the event row ids the follower's CTE saw, in order. */
class BatchLog implements RelayFollower<{ deliveryId: number }> {
  readonly batches: number[][] = [];
  over(taken: string): string {
    // deliveryId is what the relay orders a follower's rows by; here the event row id.
    return `select json_build_object('deliveryId', event_row_id) as out from ${taken}`;
  }
  async afterCommit(rows: readonly { deliveryId: number }[]): Promise<void> {
    this.batches.push(rows.map((r) => r.deliveryId));
  }
}

describe('two relays at once', () => {
  let db: TestDatabase;
  let redis: Redis;
  beforeAll(async () => {
    db = await createTestDatabase();
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    redis?.disconnect();
    await db?.drop();
  });

  /** EVENTS events of seven orders, interleaved; returns their event row ids, in order. */
  let nextSeq = 0;
  async function fillOutbox(): Promise<{ ids: number[] }> {
    const events = Array.from({ length: EVENTS }, (_, i) => ({ orderId: 1 + (i % 7), seq: ++nextSeq }));
    return { ids: (await writeOutboxEvents(db.database.sql!, events, 200)).eventRowIds };
  }

  async function drainWithTwo(make: () => OutboxRelay): Promise<void> {
    const relays = [make(), make()];
    // Both ask for batches as fast as they can, each waiting for the other's batch to commit.
    await Promise.all(
      relays.map(async (relay) => {
        while ((await relay.relayOnce()) > 0);
      }),
    );
    expect(await outboxWaiting(db.database.sql!)).toBe(0);
  }

  it('with the events stream, every event once, in event row order', async () => {
    const prefix = testPrefix();
    try {
      const { ids } = await fillOutbox();
      const inOrder = (await db.database.sql!`select event_id from shipment_events where id = any(${ids}) order by id`).map(
        (r) => r.event_id,
      );
      await drainWithTwo(
        () => new OutboxRelay({ database: db.database, connection: redis, prefix, log, batchSize: 13, stream: { maxLen: 10_000 } }),
      );
      const published = (await streamMessages(redis, prefix)).map((m) => m.event_id);
      expect(published).toEqual(inOrder);
    } finally {
      await dropPrefix(prefix);
    }
  });

  it('without it (the batch and its commit in one round trip), each batch the next ids, none twice', async () => {
    const { ids } = await fillOutbox();
    const logs = [new BatchLog(), new BatchLog()];
    let made = 0;
    await drainWithTwo(
      () =>
        new OutboxRelay({ database: db.database, connection: redis, prefix: testPrefix(), log, batchSize: 13, follower: logs[made++]! }),
    );
    const batches = logs.flatMap((l) => l.batches);
    expect(logs.every((l) => l.batches.length > 0)).toBe(true); // both relays had turns
    for (const b of batches) expect(b).toEqual([...b].sort((x, y) => x - y));
    const all = batches.flat().sort((x, y) => x - y);
    expect(all).toEqual(ids);
    // Turns, never overlaps: batches ordered by their first id are ranges that follow each other.
    const byStart = [...batches].sort((x, y) => x[0]! - y[0]!);
    for (let i = 1; i < byStart.length; i++) expect(byStart[i]![0]!).toBeGreaterThan(byStart[i - 1]!.at(-1)!);
  });
});
