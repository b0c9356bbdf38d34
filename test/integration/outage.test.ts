import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/private-server.ts';
import { metricsRegistry } from '../../src/telemetry/metrics-registry.ts';
import { apiClient } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { proxiedDatabaseUrl } from '../support/tcp-proxy.ts';

const UNAVAILABLE = { errors: [{ code: 'unavailable', message: expect.stringMatching(/nothing changed/) }] };

describe('when a backing service is down', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  });

  async function orderState(db: TestDatabase, id: number) {
    const [o] = await db.database.sql!`select state from orders where id = ${id}`;
    const [c] = await db.database.sql!`select count(*)::int as n from commands`;
    const [s] = await db.database.sql!`select count(*)::int as n from shipments`;
    return { order: o!.state, commands: c!.n, shipments: s!.n };
  }

  it('Redis down: the API answers 503, takes nothing, and readyz says so', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fulfil-redis-'));
    const redis: PrivateRedis = await startPrivateRedis(dir);
    cleanups.push(
      async () => rmSync(dir, { recursive: true, force: true }),
      () => redis.stop(),
    );
    const t: TestService = await startTestService({ env: { REDIS_URL: redis.url, SHUTDOWN_DEADLINE_MS: '500' } });
    cleanups.push(() => t.stop());
    await t.seed(baseFixture());
    const call = apiClient(t.url);

    expect((await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 })).status).toBe(200);
    await redis.stop();
    const before = await orderState(t.db, ORDERS.tbd2);
    const res = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd2}/accept`, { reviewer_id: 100 });
    expect(res.status).toBe(503);
    expect(res.body).toEqual(UNAVAILABLE);
    expect(await orderState(t.db, ORDERS.tbd2)).toEqual(before);
    const ready = await fetch(`${t.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { checks: { redis: string } }).checks.redis).toMatch(/^down/);
  });

  it('Redis refuses the job: a synchronous call answers 503 with nothing recorded; an asynchronous one whose receipt cannot be deleted again answers 202 with the Location, not "nothing changed"', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fulfil-redis-'));
    const redis: PrivateRedis = await startPrivateRedis(dir);
    cleanups.push(
      async () => rmSync(dir, { recursive: true, force: true }),
      () => redis.stop(),
    );
    const t: TestService = await startTestService({ env: { REDIS_URL: redis.url, SHUTDOWN_DEADLINE_MS: '500' } });
    cleanups.push(() => t.stop());
    await t.seed(baseFixture());
    // The delete fails as it would with Postgres gone between the insert and the delete.
    await t.db.database.sql!.unsafe(`
      create function refuse_delete() returns trigger language plpgsql as $$ begin raise exception 'no delete in this test'; end $$;
      create trigger refuse_delete before delete on commands for each row execute function refuse_delete()`);
    const failures = async () =>
      (await metricsRegistry.getSingleMetric('fulfil_dispatch_cleanup_failures_total')!.get()).values[0]?.value ?? 0;
    const counted = await failures();
    await redis.stop();

    // A synchronous call records nothing before its job (the answer writes the row): nothing to delete.
    const refused = await apiClient(t.url)(SELLER, 'POST', `/v9/orders/${ORDERS.tbd2}/accept`, { reviewer_id: 100 });
    expect(refused.status).toBe(503);
    expect((await t.db.database.sql!`select count(*)::int as n from commands`)[0]!.n).toBe(0);
    expect(await failures()).toBe(counted);

    const res = await apiClient(t.url)(
      SELLER,
      'POST',
      `/v9/orders/${ORDERS.tbd2}/accept`,
      { reviewer_id: 100 },
      { prefer: 'respond-async' },
    );
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(`/v9/commands/${res.body.id}`);
    // Recorded and unfinished: lost-command recovery runs it once Redis is back.
    const [row] = await t.db.database.sql!`select status, result_status from commands where id = ${res.body.id}`;
    expect(row).toEqual({ status: 'queued', result_status: null });
    expect(await failures()).toBe(counted + 1);
  });

  it('Postgres down: the API answers 503 and nothing is half-written', async () => {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    const { proxy, url } = await proxiedDatabaseUrl(db.url);
    cleanups.push(() => proxy.close());
    const t = await startTestService({ db, env: { DATABASE_URL: url } });
    cleanups.push(() => t.stop());
    await t.seed(baseFixture());
    const call = apiClient(t.url);
    const before = await orderState(db, ORDERS.tbd);

    proxy.cut();
    const res = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    expect(res.status).toBe(503);
    expect(res.body.errors[0].code).toBe('unavailable');
    expect((await fetch(`${t.url}/readyz`)).status).toBe(503);

    await proxy.restore();
    expect(await orderState(db, ORDERS.tbd)).toEqual(before);
    // And once it is back, the same call goes through.
    let after = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    for (let i = 0; i < 20 && after.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 250));
      after = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    }
    expect(after.status).toBe(200);
  });
});
