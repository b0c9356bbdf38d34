import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { runBuiltCli } from '../support/cli.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { startTestService, TEST_SECRET_KEY, type TestService } from '../support/service.ts';
import { until } from '../support/webhook-receiver.ts';

// Every path that makes an order or touches it arms its deadline timers in the same step
// (docs/DECISIONS.md D-133): an order seeded by `fulfil seed` from another process, and one
// accepted at once, get their `overdue` within a second of deliver_by, not at the 60 s sweep
// (the service runs with the default sweep period, and its sweep at start ran before the seed).

const SEEDED = 970;
const ACCEPTED = 971;

describe('deadline timers of seeded orders', () => {
  let t: TestService;
  let sql: postgres.Sql;
  let dir: string;
  beforeAll(async () => {
    t = await startTestService();
    sql = postgres(t.db.url, { max: 1, onnotice: () => {} });
    dir = mkdtempSync(path.join(tmpdir(), 'fulfil-seed-timers-'));
    // The service's own sweep at start has run (on an empty world): what comes now, only arming in the same step makes on time.
    await new Promise((r) => setTimeout(r, 500));
  });
  afterAll(async () => {
    await sql?.end();
    await t?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const overdueAt = async (orderId: number) => {
    const [row] = await sql`select at from shipment_events where order_id = ${orderId} and kind = 'overdue'`;
    return row ? new Date(row.at as Date).getTime() : undefined;
  };

  it('`fulfil seed` from another process arms them; so does an accept right after a seed', async () => {
    const deliverBy = Date.now() + 6_000;
    const fixture = baseFixture([SEEDED, ACCEPTED]);
    fixture.orders = fixture.orders.filter((o) => o.id === SEEDED || o.id === ACCEPTED);
    for (const o of fixture.orders) Object.assign(o, { deliver_by: new Date(deliverBy).toISOString() });
    const file = path.join(dir, 'fixture.json');
    writeFileSync(file, JSON.stringify(fixture));
    const seeded = await runBuiltCli(
      {
        PATH: process.env.PATH,
        DATABASE_URL: t.db.url,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: t.prefix,
        FULFIL_SECRET_KEY: TEST_SECRET_KEY,
        DATA_DIR: dir,
        LOG_LEVEL: 'silent',
      },
      ['seed', file],
    );
    expect(seeded.code, seeded.err).toBe(0);
    expect(seeded.out).toMatch(/armed \d+ deadline timers of 2 new orders/);
    const accepted = await apiClient(t.url)(SELLER, 'POST', `/v9/orders/${ACCEPTED}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);

    await until(
      'both overdue events',
      async () => (await overdueAt(SEEDED)) !== undefined && (await overdueAt(ACCEPTED)) !== undefined,
      12_000,
    );
    for (const id of [SEEDED, ACCEPTED]) {
      const late = (await overdueAt(id))! - deliverBy;
      expect(late, `order ${id}: overdue ${late} ms after deliver_by`).toBeGreaterThanOrEqual(0);
      expect(late, `order ${id}: overdue ${late} ms after deliver_by`).toBeLessThan(1_000);
    }
  });
});
