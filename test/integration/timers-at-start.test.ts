import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { housekeepingPlace } from '@fulfil/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { seedDatabase } from '../../src/domain/seed.ts';
import { fixtureSchema } from '../../src/domain/fixture.ts';
import { secretBoxFor } from '../../src/service/database.ts';
import { TimerQueue } from '../../src/timers/deadline-timers.ts';
import { apiClient } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, TEST_SECRET_KEY, type TestService } from '../support/service.ts';
import { until } from '../support/webhook-receiver.ts';

// A service restarted over a database whose deadlines passed long ago (seeded while no worker ran,
// nothing armed in Redis) emits each open order's due_soon and overdue once, within seconds, from
// the sweep it runs at start, also when two worker processes start at once. The housekeeping schedulers the first run left in Redis keep their
// period (an hour here), so the periodic sweep would not arm them before then (a brand-new
// scheduler runs at once, which is why the first run stops before the seed). Finished orders emit none.

const LATE = 900;
const COMPLETED = 901;
const CANCELED = 902;

describe('deadline timers at start', () => {
  let db: TestDatabase;
  let t: TestService;
  let other: TestService;
  const prefix = testPrefix();

  beforeAll(async () => {
    db = await createTestDatabase();
    const first = await startTestService({ db, prefix, env: { TIMER_SWEEP_EVERY_MS: '3600000' } });
    // The new scheduler's first sweep ran (over no orders); its next is an hour away.
    const place = housekeepingPlace(prefix);
    const housekeeping = new Queue(place.name, { prefix: place.prefix, connection: { url: TEST_REDIS_URL } });
    await until('the first sweep', async () => (await housekeeping.getJobs(['completed'])).some((j) => j.name === 'sweep-timers'), 15_000);
    await housekeeping.close();
    await first.stop();
    const fixture = baseFixture([LATE, COMPLETED, CANCELED]);
    for (const o of fixture.orders as Array<Record<string, unknown>>) {
      if ([LATE, COMPLETED, CANCELED].includes(o.id as number)) o.deliver_by = '2020-01-01T00:00:00.000Z';
    }
    const config = loadConfig({ DATABASE_URL: db.url, FULFIL_SECRET_KEY: TEST_SECRET_KEY, NODE_ENV: 'test' });
    await seedDatabase(db.database, fixtureSchema.parse(fixture), secretBoxFor(config));
    const sql = db.database.sql!;
    await sql`update orders set state = 'completed' where id = ${COMPLETED}`;
    await sql`update orders set state = 'canceled' where id = ${CANCELED}`;
  });
  afterAll(async () => {
    await t?.stop();
    await other?.stop();
    await dropPrefix(prefix);
    await db?.drop();
  });

  it('emits the long-past reminder and deadline once each within seconds, and nothing for finished orders', async () => {
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const timers = new TimerQueue({ prefix, connection: redis });
    try {
      // Nothing armed before the service starts.
      expect(await timers.queue.getJobCounts()).toMatchObject({ delayed: 0, waiting: 0, active: 0 });
      const started = Date.now();
      // Two processes start at once, both sweeping: each timer is still armed and fired once.
      const env = { TIMER_SWEEP_EVERY_MS: '3600000', RELAY_INTERVAL_MS: '50' };
      [t, other] = await Promise.all([
        startTestService({ db, prefix, env }),
        startTestService({ db, prefix, env, roles: { api: false, worker: true } }),
      ]);
      const call = apiClient(t.url);
      const kindsOf = async (id: number) =>
        ((await call(SELLER, 'GET', `/v9/orders/${id}/events`)).body.events as Array<{ kind: string }>).map((e) => e.kind);
      await until(
        'both events of the late order',
        async () => {
          const kinds = await kindsOf(LATE);
          return kinds.includes('due_soon') && kinds.includes('overdue');
        },
        10_000,
      );
      expect(Date.now() - started).toBeLessThan(10_000);
      // Let any second arming or run show itself.
      await new Promise((r) => setTimeout(r, 1_500));
      const kinds = await kindsOf(LATE);
      expect(kinds.filter((k) => k === 'due_soon')).toHaveLength(1);
      expect(kinds.filter((k) => k === 'overdue')).toHaveLength(1);
      for (const id of [COMPLETED, CANCELED]) expect((await kindsOf(id)).some((k) => k === 'due_soon' || k === 'overdue')).toBe(false);
    } finally {
      await timers.close();
      redis.disconnect();
    }
  }, 60_000);
});
