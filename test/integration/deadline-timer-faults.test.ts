import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../chaos/cluster.ts';
import { baseFixture } from '../support/fixtures.ts';
import { until } from '../support/webhook-receiver.ts';
import { fireTimer } from '../../src/timers/fire-timer.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

// Faults around a deadline timer's run: the same timer's job run several times at once (a
// redelivered job beside the sweep's re-armed copy, on several workers) and late again afterwards
// emits its event once; the order's row lock and fired column decide, not Redis. On built
// processes with a private Postgres: the worker SIGKILLed as its timer comes due, and Postgres
// restarted across a due time, each still emit the reminder and the deadline once.

describe('deadline timer faults', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    const sql = db.database.sql!;
    await sql`insert into brokerages (id, name) values (1, 's'), (2, 'b')`;
    await sql`insert into offices (id, brokerage_id, name) values (10, 1, 'o')`;
    await sql`insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email,
                state, deliver_by, due_soon_at)
              values (1, '1-1', 10, 2, 'tbd', 1, 'n', 'n@x.test', 'accepted', now() - interval '1 second', now() - interval '3 seconds')`;
  });
  afterAll(async () => {
    await db?.drop();
  });

  const eventsOf = async (kind: string) =>
    (await db.database.sql!`select count(*)::int as n from shipment_events where order_id = 1 and kind = ${kind}`)[0]!.n as number;

  it('a timer run several times at once, and late again, emits its event once', async () => {
    for (const kind of ['due_soon', 'overdue'] as const) {
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => fireTimer(db.database, 1, kind)));
      expect(
        outcomes.filter((o) => o.kind === 'fired'),
        kind,
      ).toHaveLength(1);
      expect(
        outcomes.filter((o) => o.kind === 'already_fired'),
        kind,
      ).toHaveLength(5);
      expect(await fireTimer(db.database, 1, kind, Date.now() + 3_600_000)).toEqual({ kind: 'already_fired' });
      expect(await eventsOf(kind), kind).toBe(1);
    }
  });
});

const KILLED = 950;
const RESTARTED = 951;
const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));

describe('deadline timers on built processes', () => {
  let c: Cluster;
  let due: Record<number, number>;
  beforeAll(async () => {
    c = await startCluster({
      workers: 1,
      env: { TIMER_SWEEP_EVERY_MS: '1000', DUE_SOON_BEFORE_MS: '1000', RELAY_INTERVAL_MS: '50', JOB_BACKOFF_MS: '100' },
    });
    const now = Date.now();
    due = { [KILLED]: now + 8_000, [RESTARTED]: now + 16_000 };
    const fixture = baseFixture([KILLED, RESTARTED]);
    for (const o of fixture.orders as Array<Record<string, unknown>>) {
      const at = due[o.id as number];
      if (at) o.deliver_by = new Date(at).toISOString();
    }
    await c.seed(fixture);
  }, 120_000);
  afterAll(async () => {
    await c?.stop();
  }, 120_000);

  const counts = async (orderId: number) => {
    const rows = await c.db.sql!`select kind, count(*)::int as n from shipment_events where order_id = ${orderId}
      and kind in ('due_soon', 'overdue') group by kind order by kind`;
    return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
  };

  it('the worker SIGKILLed as the deadline comes due: after a new worker starts, each event once', async () => {
    await sleepUntil(due[KILLED]! - 30);
    await c.kill(c.workers[0]!);
    await c.addWorker();
    await until('the deadline after the kill', async () => (await counts(KILLED)).overdue === 1, 90_000);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await counts(KILLED)).toEqual({ due_soon: 1, overdue: 1 });
    expect(c.crashes()).toEqual([]);
  }, 120_000);

  it('Postgres restarted across the reminder and the deadline: each event once', async () => {
    await sleepUntil(due[RESTARTED]! - 1_500);
    c.pg.stop('immediate');
    await sleepUntil(due[RESTARTED]! + 1_000);
    c.pg.start();
    await until('the deadline after the restart', async () => (await counts(RESTARTED)).overdue === 1, 60_000);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await counts(RESTARTED)).toEqual({ due_soon: 1, overdue: 1 });
    expect(c.crashes()).toEqual([]);
  }, 120_000);
});
