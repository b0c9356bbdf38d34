import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialCache } from '../../src/auth/credential-cache.ts';
import { createCredential, revokeCredential, type CreatedCredential } from '../../src/auth/credentials.ts';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { seedDatabase } from '../../src/domain/seed.ts';
import { fixtureSchema } from '../../src/domain/fixture.ts';
import { freePort } from '../../src/redis/private-server.ts';
import { baseFixture } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/fulfil.mjs');
const PATH = '/v9/credentials/current';

/**
 * API processes keep credentials in memory (src/auth/credential-cache.ts). A revocation must still
 * hold within a second on every one of them: two `fulfil start --role api` processes, as an
 * operator runs them, each serving a credential from its cache, then the credential is revoked.
 */
describe('credentials cached in each API process', () => {
  let db: TestDatabase;
  const key = randomBytes(32).toString('hex');
  const box = SecretBox.fromKey(key);
  const prefix = testPrefix();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-credcache-'));
  const apis: Array<{ child: ChildProcess; url: string }> = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    await seedDatabase(db.database, fixtureSchema.parse(baseFixture()), box);
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const child = spawn(process.execPath, [BIN, 'start', '--role', 'api'], {
        env: {
          ...process.env,
          DATABASE_URL: db.url,
          REDIS_URL: TEST_REDIS_URL,
          QUEUE_PREFIX: prefix,
          FULFIL_SECRET_KEY: key,
          PORT: String(port),
          HOST: '127.0.0.1',
          DATA_DIR: path.join(dataDir, String(i)),
          LOG_LEVEL: 'silent',
          NODE_ENV: 'test',
          RATE_LIMIT_PER_MINUTE: '0',
          // The longest the setting allows: without the notification, a revocation would take this long.
          CREDENTIAL_CACHE_MS: '1000',
        },
        stdio: 'ignore',
      });
      apis.push({ child, url: `http://127.0.0.1:${port}` });
    }
    for (const api of apis) {
      const until = Date.now() + 60_000;
      while (
        !(await fetch(`${api.url}/readyz`).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        if (Date.now() > until || api.child.exitCode !== null) throw new Error(`API at ${api.url} did not become ready`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }, 90_000);
  afterAll(async () => {
    for (const { child } of apis) {
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
    }
    await dropPrefix(prefix);
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it('a revoked credential is refused within a second by every API process', async () => {
    const created: CreatedCredential = await createCredential(db.database.db, box, { brokerageId: 1, userId: 100 });
    // Each process serves it, and keeps serving it from memory while requests keep coming.
    for (const api of apis) expect((await signedFetch(api.url, created, 'GET', PATH)).status).toBe(200);

    expect(await revokeCredential(db.database.db, created.token)).toBe(true);
    const revokedAt = performance.now();
    const refusedAfter = await Promise.all(
      apis.map(async (api) => {
        for (;;) {
          const res = await signedFetch(api.url, created, 'GET', PATH);
          if (res.status === 401) return performance.now() - revokedAt;
          expect(res.status).toBe(200);
          if (performance.now() - revokedAt > 5_000) return Infinity;
        }
      }),
    );
    for (const ms of refusedAfter) expect(ms).toBeLessThan(1_000);
    // And it stays refused, for bodies too.
    for (const api of apis) expect((await signedFetch(api.url, created, 'POST', `${PATH}/verify`, { a: 1 })).status).toBe(401);
  }, 30_000);
});

describe('the credential cache itself', () => {
  let db: TestDatabase;
  const cache = new CredentialCache({ ttlMs: 60_000, maxEntries: 100 });
  beforeAll(async () => {
    db = await createTestDatabase();
    await seedDatabase(db.database, fixtureSchema.parse(baseFixture()), SecretBox.fromKey(randomBytes(32).toString('hex')));
    await cache.start(db.database);
  });
  afterAll(async () => {
    await cache.stop();
    await db?.drop();
  });

  const entry = {
    row: { kind: 'api' as const, mode: 'live' as const, brokerageId: 1, userId: null, secretCiphertext: 'x', revokedAt: null },
    secret: 's',
  };
  const until = async (check: () => boolean) => {
    const started = performance.now();
    while (!check() && performance.now() - started < 5_000) await new Promise((r) => setTimeout(r, 10));
    return performance.now() - started;
  };

  it('drops an entry on the notification of its change, long before its time is up', async () => {
    const { token } = await createCredential(db.database.db, SecretBox.fromKey(randomBytes(32).toString('hex')), { brokerageId: 1 });
    cache.set(token, entry, cache.mark());
    expect(cache.get(token)).toBeDefined();
    await revokeCredential(db.database.db, token);
    expect(await until(() => cache.get(token) === undefined)).toBeLessThan(1_000);
  });

  it('does not store a read that a notification overtook', async () => {
    const mark = cache.mark();
    await db.database.rows(`select pg_notify('fulfil_credentials', 'SomeOtherToken')`, []);
    await until(() => cache.mark() !== mark);
    cache.set('StaleReadToken', entry, mark);
    expect(cache.get('StaleReadToken')).toBeUndefined();
  });

  it('forgets everything when its listening connection comes back (what it missed meanwhile is unknown)', async () => {
    cache.set('KeptToken', entry, cache.mark());
    expect(cache.get('KeptToken')).toBeDefined();
    await db.database.rows(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike 'listen%'`,
      [],
    );
    expect(await until(() => cache.get('KeptToken') === undefined)).toBeLessThan(4_000);
  });
});
