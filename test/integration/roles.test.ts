import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFFICE_ACCESS_DENIED, assertOfficeAccess, officeBelongsTo } from '../../src/auth/roles.ts';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { seedDatabase } from '../../src/domain/seed.ts';
import { fixtureSchema } from '../../src/domain/fixture.ts';
import { Unauthorized } from '@fulfil/contract';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { baseFixture } from '../support/fixtures.ts';

describe('office tenancy on Postgres', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    await seedDatabase(tdb.database, fixtureSchema.parse(baseFixture()), SecretBox.fromKey(randomBytes(32)));
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  it('officeBelongsTo: each office of the brokerage, and no other', async () => {
    const db = tdb.database.db;
    expect(await officeBelongsTo(db, 10, 1)).toBe(true);
    expect(await officeBelongsTo(db, 11, 1)).toBe(true);
    expect(await officeBelongsTo(db, 20, 1)).toBe(false);
    expect(await officeBelongsTo(db, 20, 2)).toBe(true);
    expect(await officeBelongsTo(db, 10, 3)).toBe(false);
    expect(await officeBelongsTo(db, 999_999, 1)).toBe(false);
  });

  it('assertOfficeAccess passes for an own office', async () => {
    await expect(assertOfficeAccess(tdb.database.db, 11, { brokerageId: 1 })).resolves.toBeUndefined();
  });

  it('assertOfficeAccess: a foreign office and a missing one give the same 401', async () => {
    const foreign = await assertOfficeAccess(tdb.database.db, 20, { brokerageId: 1 }).catch((e: unknown) => e);
    const missing = await assertOfficeAccess(tdb.database.db, 999_999, { brokerageId: 1 }).catch((e: unknown) => e);
    for (const err of [foreign, missing]) {
      expect(err).toBeInstanceOf(Unauthorized);
      expect((err as Unauthorized).status).toBe(401);
      expect((err as Unauthorized).message).toBe(OFFICE_ACCESS_DENIED);
    }
  });

  it('works inside a transaction', async () => {
    const result = await tdb.database.db.transaction(async (tx) => officeBelongsTo(tx, 30, 3));
    expect(result).toBe(true);
  });
});
