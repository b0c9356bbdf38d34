import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Acknowledgements } from '../../src/webhooks/acknowledgements.ts';
import type { Claimed } from '../../src/webhooks/claimed-delivery.ts';
import { claimHeads } from '../../src/webhooks/deliver-chain.ts';
import { ACKNOWLEDGED, CHAIN_LOCKS, CLAIM_HEADS } from '../../src/webhooks/chain-sql.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * A newer event of a chain is claimed by its own job even when that job's claim waited on the
 * head the previous job was acknowledging, and that job's claim of the next head ran before the
 * relay committed the newer event. The interleaving is made by hand on real connections:
 *
 *   job 1 (T1): BEGIN; lock the chain; acknowledge seq 1; claim the next head → nothing yet  (T1 still open)
 *   relay:      commit delivery seq 2, then queue job 2
 *   job 2:      lock the chain → waits on T1 …
 *   job 1:      COMMIT → job 2 finds seq 1 delivered and claims seq 2
 *
 * Before, job 2 read seq 1 as leased without waiting, claimed nothing, and seq 2 waited for the
 * sweep (seen as 15–23 s deliveries under load).
 */
describe('webhook chain claim race', () => {
  let db: TestDatabase;
  let admin: postgres.Sql;
  let endpointId: number;
  const ORDER = 4242;
  const LEASE = 30;

  beforeAll(async () => {
    db = await createTestDatabase();
    admin = postgres(db.url, { max: 4, onnotice: () => {} });
    await admin`insert into brokerages (id, name) values (1, 'Acme')`;
    const [endpoint] = await admin<{ id: number }[]>`
      insert into webhook_endpoints (brokerage_id, url, event_kinds, secret_ciphertext)
      values (1, 'https://receiver.example.test/hook', '{created,updated}', 'sealed') returning id::int`;
    endpointId = endpoint!.id;
  });
  afterAll(async () => {
    await admin?.end();
    await db?.drop();
  });

  const delivery = async (seq: number) =>
    (
      await admin<{ id: number }[]>`
        insert into webhook_deliveries (endpoint_id, order_id, seq, event_id, kind, event_at)
        values (${endpointId}, ${ORDER}, ${seq}, ${`e-${ORDER}-${seq}`}, 'updated', now()) returning id::int`
    )[0]!.id;

  /** Until a session of the test's database waits on a lock; `never` is the failure after about 2 s. */
  const someoneWaitsOnALock = async (never: string) => {
    for (let i = 0; i <= 200; i++) {
      const [w] = await admin`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`;
      if (w!.n > 0) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(never);
  };

  it('the waiting job claims the event committed after the other job looked', async () => {
    const first = await delivery(1);
    const [claimed] = await admin.unsafe(CLAIM_HEADS, [endpointId, [ORDER], LEASE]);
    expect(Number(claimed!.id)).toBe(first);

    // Job 1 acknowledges seq 1 and looks for the next head, in a transaction it keeps open.
    const t1 = await admin.reserve();
    let job2: ReturnType<typeof claimHeads>;
    let second: number;
    try {
      await t1.unsafe('begin');
      await t1.unsafe(CHAIN_LOCKS, [endpointId, [ORDER]]);
      await t1.unsafe(ACKNOWLEDGED, [endpointId, [first], ['e-1'], [ORDER], [1], [204], [5]]);
      expect(await t1.unsafe(CLAIM_HEADS, [endpointId, [ORDER], LEASE])).toHaveLength(0);

      // The relay commits seq 2; its job claims while job 1's transaction still holds the chain.
      second = await delivery(2);
      job2 = claimHeads(db.database, endpointId, [ORDER], LEASE);
      job2.catch(() => {});
      await someoneWaitsOnALock('job 2 never waited on the lock: it gave up on the leased head');
    } finally {
      await t1.unsafe('commit');
      t1.release();
    }

    const [head] = await job2;
    expect(head?.id && Number(head.id)).toBe(second);
    const [row] = await admin`select leased_until is not null as leased, attempts from webhook_deliveries where id = ${second}`;
    expect(row).toEqual({ leased: true, attempts: 1 });
  });

  it('a head leased by a job in its call is left to that job', async () => {
    const third = await delivery(3);
    const [held] = await admin.unsafe(CLAIM_HEADS, [endpointId, [ORDER], LEASE]);
    expect(held).toBeUndefined(); // seq 2 is still leased (the test above), so seq 3 waits behind it
    expect(await claimHeads(db.database, endpointId, [ORDER], LEASE)).toEqual([]);
    const [row] = await admin`select leased_until is null as free, attempts from webhook_deliveries where id = ${third}`;
    expect(row).toEqual({ free: true, attempts: 0 });
  });

  it('an acknowledgement chosen as a deadlock victim is tried again, and the event counts as delivered once', async () => {
    const order = 4343;
    const [row] = await admin<{ id: number }[]>`
      insert into webhook_deliveries (endpoint_id, order_id, seq, event_id, kind, event_at)
      values (${endpointId}, ${order}, 1, ${`e-${order}-1`}, 'updated', now()) returning id::int`;
    const [head] = await claimHeads(db.database, endpointId, [order], LEASE);
    expect(Number(head!.id)).toBe(row!.id);

    // Another transaction holds the delivery row, then wants the chain: a cycle with the acknowledgement,
    // which takes the chain first and then wants the row. The acknowledgement waits first, so its
    // deadlock check runs first and it is the one Postgres fails (had the other been failed, its
    // lock call below would throw).
    const other = await admin.reserve();
    let acknowledged: Promise<Claimed | undefined>;
    try {
      await other.unsafe('begin');
      await other.unsafe('update webhook_deliveries set attempts = attempts where id = $1', [row!.id]);
      acknowledged = new Acknowledgements(db.database, endpointId, LEASE).acknowledge(
        { ...head!, id: Number(head!.id) },
        { statusCode: 204, latencyMs: 3 },
        false,
      );
      acknowledged.catch(() => {});
      await someoneWaitsOnALock('the acknowledgement never waited on the row');
      // Well inside deadlock_timeout (1 s), and far enough apart that the acknowledgement's check comes first.
      await new Promise((r) => setTimeout(r, 250));
      await other.unsafe('select pg_advisory_xact_lock(hashint8($1::bigint), hashint8($2::bigint))', [endpointId, order]);
    } finally {
      await other.unsafe('commit');
      other.release();
    }

    await expect(acknowledged).resolves.toBeUndefined();
    const [state] =
      await admin`select delivered_at is not null as delivered, leased_until is null as released from webhook_deliveries where id = ${row!.id}`;
    expect(state).toEqual({ delivered: true, released: true });
    const attempts = await admin`select outcome, status_code from webhook_attempts where delivery_id = ${row!.id}`;
    expect(attempts).toEqual([{ outcome: 'success', status_code: 204 }]);
  });
});
