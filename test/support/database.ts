import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { ADMIN_DATABASE_URL, databaseUrl } from './env.ts';

export interface TestDatabase {
  name: string;
  url: string;
  database: Database;
  drop(): Promise<void>;
}

/** A fresh database for one test file, cloned from the migrated template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const template = inject('templateDatabase');
  const name = `fulfil_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    // Two files cloning the same template at the same instant can collide; try again.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.unsafe(`create database ${name} template ${template}`);
        break;
      } catch (err) {
        if (attempt >= 20 || !/being accessed by other users/.test((err as Error).message)) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  return openTestDatabase(name);
}

/** An existing database of this run (named `fulfil_t_<pid>_…`, so a killed run's is dropped later), opened; `drop` drops it. */
export async function openTestDatabase(name: string): Promise<TestDatabase> {
  const url = databaseUrl(name);
  const database = await openDatabase({ databaseUrl: url, maxConnections: 8 });
  return {
    name,
    url,
    database,
    async drop() {
      await database.close();
      const a = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await a.end();
      }
    },
  };
}
