import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbeddedThread } from '../../src/db/embedded-client.ts';
import { readEmbeddedAddress } from '../../src/db/pglite-socket.ts';
import { seedDatabase } from '../../src/domain/seed.ts';
import { fixtureSchema } from '../../src/domain/fixture.ts';
import { apiClient } from '../support/api.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

const BOUND_MS = 2_000;

/**
 * A CLI guest's long statement on the embedded database (`select pg_sleep(30)` on the service's
 * socket) is stopped after EMBEDDED_GUEST_STATEMENT_MS, the service's event loop answers all the
 * while, and what the service committed before is still there afterwards (PGlite reopened from
 * its files, embedded-client.ts).
 */
describe('a long guest statement on the embedded database', () => {
  let t: TestService;
  let socketPath: string;
  const guest = () =>
    postgres({ path: socketPath, database: 'postgres', username: 'postgres', max: 1, prepare: false, onnotice: () => {} });

  beforeAll(async () => {
    t = await startTestService({ env: { DATABASE_URL: '', EMBEDDED_GUEST_STATEMENT_MS: String(BOUND_MS) } });
    expect(t.service.database.kind).toBe('pglite');
    await seedDatabase(t.service.database, fixtureSchema.parse(baseFixture()), t.service.secretBox);
    socketPath = readEmbeddedAddress(path.join(t.config.DATA_DIR, 'pglite'))!.path;
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('is stopped within its bound, /livez answers meanwhile, and commands before and after hold', async () => {
    const call = apiClient(t.url);
    const before = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    expect(before.status).toBe(200);

    const sleeper = guest();
    const started = Date.now();
    const slept = sleeper.unsafe('select pg_sleep(30)').then(
      () => ({ error: undefined, ms: Date.now() - started }),
      (error: Error) => ({ error, ms: Date.now() - started }),
    );
    let settled = false;
    void slept.then(() => (settled = true));
    // /livez while the guest sleeps (a second in), and on until it is stopped.
    await new Promise((r) => setTimeout(r, 1_000));
    let maxLivezMs = 0;
    let probes = 0;
    while (!settled) {
      const t0 = performance.now();
      const res = await fetch(`${t.url}/livez`);
      maxLivezMs = Math.max(maxLivezMs, performance.now() - t0);
      expect(res.status).toBe(200);
      probes++;
      await new Promise((r) => setTimeout(r, 100));
    }
    const { error, ms } = await slept;
    await sleeper.end({ timeout: 1 });

    expect(error?.message).toMatch(/EMBEDDED_GUEST_STATEMENT_MS/);
    expect(ms).toBeGreaterThanOrEqual(BOUND_MS);
    expect(ms).toBeLessThan(BOUND_MS + 8_000);
    expect(probes).toBeGreaterThan(0);
    expect(maxLivezMs).toBeLessThan(1_500);
    expect((t.service.database.embedded!.thread as EmbeddedThread).restarts).toBe(1);

    // What the service committed before survived the restart; new commands and guests work.
    const order = await call(SELLER, 'GET', `/v9/orders/${ORDERS.tbd}`);
    expect(order.status).toBe(200);
    expect(order.body.state).toBe('accepted');
    const after = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd2}/accept`, { reviewer_id: 100 });
    expect(after.status).toBe(200);
    const next = guest();
    try {
      expect(await next.unsafe('select count(*)::int as n from orders where id in (700, 701)')).toEqual([{ n: 2 }]);
    } finally {
      await next.end({ timeout: 1 });
    }
    expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
  });
});
