import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../src/domain/seed.ts';
import { readEmbeddedAddress } from '../../src/db/pglite-socket.ts';
import { fixtureSchema } from '../../src/domain/fixture.ts';
import { apiClient } from '../support/api.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * A CLI guest on the embedded database shares the service's one PGlite session (pglite-socket.ts).
 * What a guest does to that session must not outlive its statement, and readiness must say when
 * the session cannot take writes.
 */
describe('a guest on the embedded database', () => {
  let t: TestService;
  let guest: postgres.Sql;
  const readyz = async () => (await fetch(`${t.url}/readyz`)).json() as Promise<{ status: string; checks: Record<string, string> }>;

  beforeAll(async () => {
    // DATABASE_URL empty: the service runs on PGlite in its DATA_DIR and lends it over its socket.
    t = await startTestService({ env: { DATABASE_URL: '' } });
    expect(t.service.database.kind).toBe('pglite');
    await seedDatabase(t.service.database, fixtureSchema.parse(baseFixture()), t.service.secretBox);
    const address = readEmbeddedAddress(path.join(t.config.DATA_DIR, 'pglite'))!;
    guest = postgres({ path: address.path, database: 'postgres', username: 'postgres', max: 1, prepare: false, onnotice: () => {} });
  });
  afterAll(async () => {
    await guest?.end({ timeout: 1 });
    await t?.stop();
  });

  it('cannot leave the session read-only: commands keep working, and readiness stays true', async () => {
    await guest.unsafe('set default_transaction_read_only = on');
    await guest.unsafe("set search_path = 'nowhere'");
    const call = apiClient(t.url);
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    // The guest's own next statement runs on a clean session too.
    expect((await guest.unsafe(`select current_setting('default_transaction_read_only') as ro`))[0]!.ro).toBe('off');
    expect(await readyz()).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('cannot keep a role or a temporary table past its exchange', async () => {
    await guest.unsafe('create temporary table guest_scratch (x int)');
    await guest.unsafe('set role pg_monitor');
    const [row] = await t.service.database.rows<{ who: string; temp: string | null }>(
      `select current_user as who, to_regclass('pg_temp.guest_scratch')::text as temp`,
      [],
    );
    expect(row).toEqual({ who: 'postgres', temp: null });
  });

  it('readiness says down while the session is read-only, and ready again once it is not', async () => {
    await t.service.database.embedded!.exec('set default_transaction_read_only = on');
    try {
      const res = await fetch(`${t.url}/readyz`);
      expect(res.status).toBe(503);
      expect((await res.json()) as unknown).toMatchObject({ checks: { postgres: 'down' } });
    } finally {
      await t.service.database.embedded!.exec('reset default_transaction_read_only');
    }
    expect((await readyz()).status).toBe('ready');
  });

  it('readiness says down while a guest holds the session in a transaction', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const tx = guest.begin(async (sql) => {
      await sql`select 1`;
      await held;
    });
    await new Promise((r) => setTimeout(r, 200));
    try {
      expect((await readyz()).checks.postgres).toBe('down');
    } finally {
      release();
      await tx;
    }
    expect((await readyz()).status).toBe('ready');
  });
});
