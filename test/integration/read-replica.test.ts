import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FulfilmentClient } from '@fulfil/client';
import { openDatabase } from '../../src/db/client.ts';
import { apiClient } from '../support/api.ts';
import type { TestDatabase } from '../support/database.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, BUYER, ORDERS, SELLER } from '../support/fixtures.ts';
import { startPrivatePrimary, startStreamingReplica, type PrivatePostgres } from '../support/private-postgres.ts';
import { startTestService, type TestService } from '../support/service.ts';

// DATABASE_READ_URL against a real streaming replica of a private primary. Replay on the
// replica is paused at will, so a read that the replica serves visibly lags while the reads of
// one's own writes (orders, shipments, command status) still answer from the primary.

async function until(what: string, check: () => Promise<boolean>, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const withDb = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

describe('with a read replica', () => {
  let primary: PrivatePostgres;
  let replica: PrivatePostgres;
  let primarySql: postgres.Sql;
  let replicaSql: postgres.Sql;
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let client: FulfilmentClient;

  /** Waits until the replica has replayed everything the primary has written so far. */
  const caughtUp = async () => {
    const [{ lsn }] = (await primarySql`select pg_current_wal_lsn()::text as lsn`) as unknown as [{ lsn: string }];
    await until('the replica to catch up', async () => {
      const [row] = await replicaSql`select pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as done`;
      return row!.done === true;
    });
  };

  beforeAll(async () => {
    primary = await startPrivatePrimary({ fsync: 'off' });
    const admin = postgres(primary.url, { max: 1, onnotice: () => {} });
    await admin`create database fulfil_replica_test`;
    await admin.end();
    replica = await startStreamingReplica(primary);
    const url = withDb(primary.url, 'fulfil_replica_test');
    primarySql = postgres(url, { max: 2, onnotice: () => {} });
    replicaSql = postgres(withDb(replica.url, 'fulfil_replica_test'), { max: 2, onnotice: () => {} });
    const db: TestDatabase = {
      name: 'fulfil_replica_test',
      url,
      database: await openDatabase({ databaseUrl: url, maxConnections: 4 }),
      drop: async () => {},
    };
    t = await startTestService({ db, env: { DATABASE_READ_URL: withDb(replica.url, 'fulfil_replica_test'), RELAY_INTERVAL_MS: '50' } });
    await t.seed(baseFixture());
    call = apiClient(t.url);
    client = new FulfilmentClient({ redisUrl: TEST_REDIS_URL, prefix: t.prefix, defaultTimeoutMs: 15_000 });
    await caughtUp();
  }, 180_000);

  afterAll(async () => {
    await replicaSql?.unsafe('select pg_wal_replay_resume()').catch(() => {});
    await client?.close();
    await t?.stop();
    await t?.db.database.close();
    await primarySql?.end();
    await replicaSql?.end();
    await replica?.stop();
    await primary?.stop();
  });

  it('the API reads the event feed and the inventory index from the replica', async () => {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    await caughtUp();
    const events = await call(BUYER, 'GET', `/v9/orders/${ORDERS.tbd}/events`);
    expect(events.body.events.map((e: { kind: string }) => e.kind)).toEqual(['created']);
    const reading = await replicaSql`select count(*)::int as n from pg_stat_activity where application_name = 'fulfil read'`;
    expect(reading[0]!.n).toBeGreaterThan(0);
  });

  it('a paused replica shows an older event feed and index; orders, shipments and command status answer from the primary', async () => {
    await replicaSql`select pg_wal_replay_pause()`;
    try {
      const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd2}/accept`, { reviewer_id: 100 });
      expect(accepted.status).toBe(200);
      const shipmentId = accepted.body.shipments[0].id;
      const commandId = accepted.headers.get('x-command-id');
      const upserted = await client.upsertInventory(
        { office_id: 10, records: [{ remote_id: 7001, quantity: 2, price: 80 }] },
        { brokerageId: 1, await: true },
      );
      expect(upserted).toMatchObject({ status: 200 });

      // Own writes, from the primary: the order, its new shipment, the command that made it.
      expect((await call(BUYER, 'GET', `/v9/orders/${ORDERS.tbd2}`)).body).toMatchObject({
        state: 'accepted',
        shipments: [{ id: shipmentId }],
      });
      expect((await call(SELLER, 'GET', `/v9/shipments/${shipmentId}`)).status).toBe(200);
      expect((await call(SELLER, 'GET', `/v9/commands/${commandId}`)).body).toMatchObject({
        status: 'succeeded',
        response: { status: 200 },
      });
      // From the replica, not yet replayed: no event, no ticket group.
      expect((await call(BUYER, 'GET', `/v9/orders/${ORDERS.tbd2}/events`)).body.events).toEqual([]);
      expect((await call(SELLER, 'GET', '/v9/inventory?office_id=10')).body).toEqual([]);
    } finally {
      await replicaSql`select pg_wal_replay_resume()`;
    }
    await caughtUp();
    expect((await call(BUYER, 'GET', `/v9/orders/${ORDERS.tbd2}/events`)).body.events.map((e: { kind: string }) => e.kind)).toEqual([
      'created',
    ]);
    expect((await call(SELLER, 'GET', '/v9/inventory?office_id=10')).body).toEqual([{ id: null, remote_id: 7001, event_id: null }]);
  });

  it('a feed cursor from a long poll (read on the primary) is still good while the replica lags: an empty page, then the rest', async () => {
    const start = (await call(BUYER, 'GET', '/v9/events?limit=1000')).body.next_cursor as string;
    await replicaSql`select pg_wal_replay_pause()`;
    let cursor: string;
    try {
      const polling = call(BUYER, 'GET', `/v9/events?after=${start}&wait=20`);
      expect((await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd3}/accept`, { reviewer_id: 100 })).status).toBe(200);
      const woken = await polling;
      expect(woken.body.events.map((e: { order_id: number }) => e.order_id)).toEqual([ORDERS.tbd3]);
      cursor = woken.body.next_cursor;
      // The replica has not replayed that position: nothing new there, and not a cursor past the end.
      expect(await call(BUYER, 'GET', `/v9/events?after=${cursor}`)).toMatchObject({
        status: 200,
        body: { events: [], next_cursor: cursor, has_more: false },
      });
    } finally {
      await replicaSql`select pg_wal_replay_resume()`;
    }
    await caughtUp();
    expect((await call(BUYER, 'GET', `/v9/events?after=${cursor}`)).body).toEqual({ events: [], next_cursor: cursor, has_more: false });
  });
});
