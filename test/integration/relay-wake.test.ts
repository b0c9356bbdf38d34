import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { OUTBOX_CHANNEL, OutboxRelay } from '../../src/events/outbox-relay.ts';
import { RelayWake } from '../../src/events/relay-wake.ts';
import { producerConnection, type RedisConnection } from '@fulfil/client/transport';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { writeOutboxEvents } from '../support/outbox-events.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';

const log = pino({ level: 'silent' });

/** Commands wake the relay after their commit: inside the transaction, NOTIFY serialises commits. */
describe('waking the outbox relay', () => {
  let db: TestDatabase;
  let other: Database;
  let redis: RedisConnection;
  const prefix = testPrefix();
  beforeAll(async () => {
    db = await createTestDatabase();
    other = await openDatabase({ databaseUrl: db.url, maxConnections: 2 });
    redis = producerConnection(TEST_REDIS_URL);
  });
  afterAll(async () => {
    redis?.disconnect();
    await other?.close();
    await dropPrefix(prefix);
    await db?.drop();
  });

  it('no transaction that adds outbox rows notifies: the trigger is gone', async () => {
    const notified: string[] = [];
    const unlisten = await db.database.listen(OUTBOX_CHANNEL, (p) => notified.push(p));
    await insertEvents(db, 3);
    await new Promise((r) => setTimeout(r, 300));
    await unlisten();
    expect(notified).toEqual([]);
  });

  it('a worker whose process does not run the relay wakes it by one NOTIFY per window, not one per command', async () => {
    const notified: string[] = [];
    const unlisten = await db.database.listen(OUTBOX_CHANNEL, (p) => notified.push(p));
    const wake = new RelayWake({ database: other, log, local: () => false });
    for (let i = 0; i < 200; i++) wake.committed();
    await new Promise((r) => setTimeout(r, 300));
    // One at once, one at the end of the window for the 199 that came during it.
    expect(notified).toHaveLength(2);
    wake.stop();
    await unlisten();
  });

  it('the relay of this process is woken directly: no NOTIFY at all', async () => {
    const notified: string[] = [];
    const unlisten = await db.database.listen(OUTBOX_CHANNEL, (p) => notified.push(p));
    let nudged = 0;
    const wake = new RelayWake({ database: other, log, local: () => (nudged++, true) });
    for (let i = 0; i < 50; i++) wake.committed();
    await new Promise((r) => setTimeout(r, 300));
    expect(nudged).toBe(50);
    expect(notified).toEqual([]);
    wake.stop();
    await unlisten();
  });

  it('a relay that polls only once a minute publishes within seconds of a wake from another process', async () => {
    const relay = new OutboxRelay({ database: db.database, connection: redis, prefix, log, intervalMs: 60_000 });
    await relay.start();
    try {
      // The start's own look has run; these rows wait for the next wake or the minute's poll.
      await new Promise((r) => setTimeout(r, 300));
      const ids = await insertEvents(db, 5);
      const relayed = async () =>
        ids.length -
        ((
          await db.database
            .sql!`select count(*)::int as n from event_feed where position is null and event_row_id in ${db.database.sql!(ids)}`
        )[0]!.n as number);
      await new Promise((r) => setTimeout(r, 500));
      expect(await relayed()).toBe(0);
      new RelayWake({ database: other, log, local: () => false }).committed();
      const deadline = Date.now() + 5_000;
      while ((await relayed()) < ids.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(await relayed()).toBe(ids.length);
    } finally {
      await relay.stop();
    }
  });
});

/** `n` events of orders that do not exist, as commands would leave them; returns their event row ids. */
let nextOrder = 9_000;
async function insertEvents(db: TestDatabase, n: number): Promise<number[]> {
  const events = Array.from({ length: n }, () => ({ orderId: nextOrder++, seq: 1 }));
  return (await writeOutboxEvents(db.database.sql!, events)).eventRowIds;
}
