import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/client.ts';
import { MIGRATIONS_FOLDER, migrateDatabase } from '../../src/db/migrate.ts';
import { isProcessAlive } from '../../src/process-alive.ts';
import { ADMIN_DATABASE_URL, databaseUrl } from './env.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

/**
 * Migrates one template database per set of migrations; every test file then clones it
 * (CREATE DATABASE … TEMPLATE), which is far faster than migrating a database per file.
 */
export default async function setup(project: TestProject) {
  const files = readdirSync(MIGRATIONS_FOLDER, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.sql') || f.endsWith('.json'))
    .sort();
  const hash = createHash('sha256');
  for (const f of files) hash.update(f).update(readFileSync(path.join(MIGRATIONS_FOLDER, f)));
  const name = `fulfil_tpl_${hash.digest('hex').slice(0, 12)}`;
  const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    await admin`select pg_advisory_lock(4242)`;
    const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!exists) {
      await admin.unsafe(`create database ${name}_building`).catch(async () => {
        await admin.unsafe(`drop database if exists ${name}_building with (force)`);
        await admin.unsafe(`create database ${name}_building`);
      });
      const url = databaseUrl(`${name}_building`);
      const database = await openDatabase({ databaseUrl: url, maxConnections: 1 });
      await migrateDatabase(database, url);
      await database.close();
      await admin.unsafe(`alter database ${name}_building rename to ${name}`);
    }
    await dropLeftovers(admin);
    await admin`select pg_advisory_unlock(4242)`;
  } finally {
    await admin.end();
  }
  project.provide('templateDatabase', name);
}

/**
 * A run that was killed leaves its databases behind; they carry the pid of the process that made
 * them, so the ones whose process is gone are dropped here. Templates are left alone: another
 * run on another set of migrations (a colleague's branch) may be cloning its own at this moment.
 */
async function dropLeftovers(admin: postgres.Sql): Promise<void> {
  // A parameter, not literal text: a template literal would cook `\_` to a bare `_` (any character).
  const rows = await admin`select datname from pg_database where datname like ${'fulfil\\_t\\_%'}`;
  for (const { datname } of rows) {
    const pid = /^fulfil_t_(\d+)_/.exec(datname)?.[1];
    if (pid && !isProcessAlive(Number(pid))) await admin.unsafe(`drop database if exists ${datname} with (force)`).catch(() => {});
  }
}
