/**
 * The schema the migrations build, compared with the committed drizzle/schema.snapshot.sql: a
 * migration that changes the schema fails here until the snapshot shows the change, so every
 * schema change is reviewed as a diff of the whole schema, not only as the migration's own steps.
 *
 * After adding or changing a migration, write the snapshot again and commit it with the migration:
 *
 *   UPDATE_SNAPSHOT=1 npx vitest run test/integration/schema-snapshot.test.ts
 *
 * The dump is pg_dump's (--schema-only --no-owner --no-privileges), by the pg_dump of the server's
 * major version (another version words the same schema differently), without the lines that
 * change from run to run or machine to machine: comments, SET lines, the \restrict token of
 * newer pg_dump releases, runs of blank lines. The `drizzle` schema is left out: it is the
 * migrator's own ledger, shaped by drizzle-orm's version rather than by these migrations.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER, migrateDatabase } from '../../src/db/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const SNAPSHOT = path.join(MIGRATIONS_FOLDER, 'schema.snapshot.sql');
const run = promisify(execFile);

async function majorOf(pgDump: string): Promise<number | undefined> {
  try {
    const { stdout } = await run(pgDump, ['--version']);
    return Number(/\(PostgreSQL\) (\d+)/.exec(stdout)?.[1]) || undefined;
  } catch {
    return undefined;
  }
}

/** The pg_dump of the server's major version: Debian's per-version one, else the one on PATH. */
async function pgDumpFor(serverMajor: number): Promise<string> {
  const root = '/usr/lib/postgresql';
  const versioned = existsSync(root) ? readdirSync(root).map((v) => path.join(root, v, 'bin', 'pg_dump')) : [];
  const found: string[] = [];
  for (const candidate of [...versioned, 'pg_dump']) {
    const major = await majorOf(candidate);
    if (major === serverMajor) return candidate;
    if (major !== undefined) found.push(`${candidate} (${major})`);
  }
  throw new Error(
    `no pg_dump ${serverMajor} for the PostgreSQL ${serverMajor} server (found: ${found.join(', ') || 'none'}); ` +
      `install its client package (Debian: postgresql-client-${serverMajor})`,
  );
}

/** The dump without what differs between runs and machines. */
function normalizeDump(dump: string): string {
  const lines = dump
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => !/^--/.test(line))
    .filter((line) => !/^SET \w+ = .*;$/.test(line) && !/^SELECT pg_catalog\.set_config\(/.test(line))
    .filter((line) => !/^\\(un)?restrict\b/.test(line));
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

describe('schema snapshot', () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
    // Cloned from the template the migrations built; migrating again must change nothing.
    await migrateDatabase(test.database, test.url);
  });
  afterAll(() => test?.drop());

  it('leaves out comments, SET lines, restrict tokens and runs of blank lines', () => {
    const dump = [
      '--',
      '-- PostgreSQL database dump',
      '\\restrict AbC123',
      'SET statement_timeout = 0;',
      "SELECT pg_catalog.set_config('search_path', '', false);",
      '',
      '',
      '',
      'CREATE TABLE public.t (',
      '    a integer',
      ');  ',
      '\\unrestrict AbC123',
      '',
    ].join('\n');
    expect(normalizeDump(dump)).toBe('CREATE TABLE public.t (\n    a integer\n);\n');
  });

  it('the migrated schema is the committed snapshot (UPDATE_SNAPSHOT=1 writes it)', async () => {
    const [{ v }] = (await test.database.rows<{ v: number }>(`select current_setting('server_version_num')::int as "v"`, [])) as [
      { v: number },
    ];
    const pgDump = await pgDumpFor(Math.floor(v / 10_000));
    const { stdout } = await run(
      pgDump,
      ['--schema-only', '--no-owner', '--no-privileges', '--exclude-schema=drizzle', '--dbname', test.url],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    const schema = normalizeDump(stdout);
    if (process.env.UPDATE_SNAPSHOT === '1') {
      writeFileSync(SNAPSHOT, schema);
      return;
    }
    if (!existsSync(SNAPSHOT)) throw new Error(`${SNAPSHOT} is missing: write it with UPDATE_SNAPSHOT=1 (see this file's header)`);
    expect(schema, 'the schema differs from drizzle/schema.snapshot.sql: UPDATE_SNAPSHOT=1 rewrites it').toBe(
      readFileSync(SNAPSHOT, 'utf8'),
    );
  });
});
