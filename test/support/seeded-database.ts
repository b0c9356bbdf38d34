import { SecretBox } from '../../src/auth/secret-box.ts';
import { fixtureSchema } from '../../src/domain/fixture.ts';
import { seedDatabase } from '../../src/domain/seed.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { TEST_SECRET_KEY } from './service.ts';

/** A fresh database (createTestDatabase) seeded with `fixture` as the service seeds one, for tests that need no service. */
export async function createSeededTestDatabase(fixture: unknown): Promise<TestDatabase> {
  const db = await createTestDatabase();
  await seedDatabase(db.database, fixtureSchema.parse(fixture), SecretBox.fromKey(TEST_SECRET_KEY));
  return db;
}
