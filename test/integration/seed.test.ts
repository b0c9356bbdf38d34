import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { query } from '../../src/db/client.ts';
import { seedDatabase } from '../../src/domain/seed.ts';
import { fixtureSchema } from '../../src/domain/fixture.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const TABLES = ['brokerages', 'offices', 'users', 'credentials', 'events', 'orders', 'ticket_groups', 'seats'];

async function dump(t: TestDatabase) {
  const out: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    // updated_at is the upsert's own clock; every other column must be unchanged
    out[table] = (await query(t.database.db, sql.raw(`select * from ${table} order by 1, 2`))).map((r) => {
      const { updated_at: _ignored, ...rest } = r as Record<string, unknown>;
      return rest;
    });
  }
  return out;
}

describe('seed', () => {
  let t: TestDatabase;
  const box = SecretBox.fromKey('33'.repeat(32));
  const fixture = fixtureSchema.parse(JSON.parse(readFileSync('fixtures/demo.json', 'utf8')));
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('loads the demo fixture, and loading it again changes nothing', async () => {
    const first = await seedDatabase(t.database, fixture, box);
    expect(first).toMatchObject({ brokerages: 2, offices: 2, users: 2, credentials: 3, events: 1, orders: 4, ticket_groups: 8 });
    const before = await dump(t);
    expect(before.seats).toHaveLength(16);
    const second = await seedDatabase(t.database, fixture, box);
    expect(second).toMatchObject({ credentials: 0, orders: 0 });
    expect(await dump(t)).toEqual(before);
  });

  it('stores credential secrets only encrypted, bound to their token', async () => {
    const rows = await query<{ token: string; secret_ciphertext: string }>(
      t.database.db,
      sql`select token, secret_ciphertext from credentials`,
    );
    const secrets = new Map(fixture.brokerages.flatMap((b) => b.credentials.map((c) => [c.token, c.secret] as const)));
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.secret_ciphertext).not.toContain(secrets.get(row.token)!);
      expect(box.open(row.secret_ciphertext, row.token)).toBe(secrets.get(row.token));
    }
  });

  it('rejects a fixture that breaks the format, naming the field', () => {
    const bad = structuredClone(JSON.parse(readFileSync('fixtures/demo.json', 'utf8')));
    bad.orders[0].oid = 'not-an-oid';
    const parsed = fixtureSchema.safeParse(bad);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(['orders', 0, 'oid']);
  });
});
