import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/redis/private-server.ts';
import { runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { testPrefix } from '../support/redis.ts';

// A supervisor can only restart a process that exits: `fulfil start` that cannot reach Redis or
// Postgres must give up within its bound, say why in one line, and exit non-zero, instead of
// logging connection errors forever.

describe('fulfil start with an unreachable dependency', () => {
  const cleanups: Array<() => Promise<unknown> | void> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });
  const dataDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fulfil-unreachable-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };
  const base = { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', QUEUE_PREFIX: testPrefix(), FULFIL_SECRET_KEY: 'ab'.repeat(32) };

  it.each(['all', 'worker', 'api'])(
    'Redis refuses connections (--role %s): one line naming it, exit 1',
    async (role) => {
      const db: TestDatabase = await createTestDatabase();
      cleanups.push(() => db.drop());
      const closed = await freePort();
      const r = await runCli(
        ['start', '--role', role],
        { ...base, DATA_DIR: dataDir(), DATABASE_URL: db.url, REDIS_URL: `redis://127.0.0.1:${closed}`, STARTUP_TIMEOUT_MS: '2000' },
        { timeoutMs: 45_000 },
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `fulfil start: Redis at redis://127.0.0.1:${closed} did not answer within 2 s (connect ECONNREFUSED 127.0.0.1:${closed})\n`,
      );
      // The log says it once, not once per reconnect attempt.
      expect(r.stdout.split('\n').filter((l) => l.includes('ECONNREFUSED')).length).toBeLessThanOrEqual(1);
    },
    60_000,
  );

  it('Postgres refuses connections: one line naming it (not its password), exit 1', async () => {
    const closed = await freePort();
    const r = await runCli(
      ['start'],
      { ...base, DATA_DIR: dataDir(), DATABASE_URL: `postgres://postgres:hunter2@127.0.0.1:${closed}/fulfil` },
      { timeoutMs: 45_000 },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `fulfil start: Postgres at 127.0.0.1:${closed} could not be reached (connect ECONNREFUSED 127.0.0.1:${closed})\n`,
    );
    expect(r.text).not.toContain('hunter2');
  }, 60_000);
});
