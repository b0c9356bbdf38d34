import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMIT_SYNC_MS } from '../../src/auth/rate-limit.ts';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { seedDatabase } from '../../src/domain/seed.ts';
import { fixtureSchema } from '../../src/domain/fixture.ts';
import { startBuiltService, stopBuiltService } from '../support/built-service.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, SELLER, STRANGER } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';

const PATH = '/v9/credentials/current';
// High enough that the polling below never meets it: a 429 there can only be the address's block.
const LIMIT = 40;
const FAILURES = 4;

/**
 * Each API process counts requests in memory and sends the counts to Redis in batches
 * (src/auth/rate-limit.ts). The limits must still be shared: two `fulfil start --role api`
 * processes on one Redis, as an operator runs them, one credential's requests split between them.
 */
describe('rate limits shared by API processes that count in batches', () => {
  let db: TestDatabase;
  const key = randomBytes(32).toString('hex');
  const prefix = testPrefix();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-ratelimit-'));
  const apis: Array<{ child: ChildProcess; url: string }> = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    await seedDatabase(db.database, fixtureSchema.parse(baseFixture()), SecretBox.fromKey(key));
    for (let i = 0; i < 2; i++) {
      apis.push(
        await startBuiltService(
          {
            DATABASE_URL: db.url,
            REDIS_URL: TEST_REDIS_URL,
            QUEUE_PREFIX: prefix,
            FULFIL_SECRET_KEY: key,
            DATA_DIR: path.join(dataDir, String(i)),
            NODE_ENV: 'test',
            RATE_LIMIT_PER_MINUTE: String(LIMIT),
            AUTH_FAILURES_PER_MINUTE: String(FAILURES),
            // As behind a proxy on this host: the client's address comes from X-Forwarded-For,
            // so the test can fail authentication from several addresses.
            TRUST_PROXY: '127.0.0.1',
          },
          ['--role', 'api'],
        ),
      );
    }
  }, 90_000);
  afterAll(async () => {
    for (const { child } of apis) if (child.exitCode === null) await stopBuiltService(child);
    await dropPrefix(prefix);
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  // Both tests need their requests in one minute window.
  const sameWindow = async () => {
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
  };
  const from = (address: string) => ({ 'x-forwarded-for': address });
  const statuses = async (url: string, n: number, who = SELLER, headers: Record<string, string> = {}) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await signedFetch(url, who, 'GET', PATH, undefined, headers)).status);
    return out;
  };

  it("a credential's requests on two processes add up to one limit", async () => {
    await sameWindow();
    const [a, b] = [apis[0]!, apis[1]!];
    // Half the limit on one process, counted there and sent in its next batch.
    expect(await statuses(a.url, LIMIT / 2)).toEqual(Array(LIMIT / 2).fill(200));
    await new Promise((r) => setTimeout(r, 3 * LIMIT_SYNC_MS));
    // The other process allows only what is left of the limit, then refuses; so does the first.
    const onB = await statuses(b.url, LIMIT);
    expect(onB.filter((s) => s === 200)).toHaveLength(LIMIT / 2);
    expect(onB.slice(LIMIT / 2)).toEqual(Array(LIMIT / 2).fill(429));
    expect(await statuses(a.url, 2)).toEqual([429, 429]);
  }, 90_000);

  it('addresses blocked for failed authentications on one process are refused by the other within a second', async () => {
    await sameWindow();
    const [a, b] = [apis[0]!, apis[1]!];
    const forged = { token: STRANGER.token, secret: 'not-the-secret-000000000000000000000000' };
    // Two addresses blocked one after the other: the other process must hear of each (it reads
    // only what was added since its last batch).
    for (const address of ['203.0.113.7', '203.0.113.8']) {
      // The other process serves the address before it is blocked (and holds the credential in memory).
      expect((await signedFetch(b.url, STRANGER, 'GET', PATH, undefined, from(address))).status).toBe(200);
      expect(await statuses(a.url, FAILURES, forged, from(address))).toEqual(Array(FAILURES).fill(401));
      const blockedAt = performance.now();
      expect((await signedFetch(a.url, STRANGER, 'GET', PATH, undefined, from(address))).status).toBe(429);
      let refusedAfter = Infinity;
      while (performance.now() - blockedAt < 5_000) {
        const status = (await signedFetch(b.url, STRANGER, 'GET', PATH, undefined, from(address))).status;
        if (status === 429) {
          refusedAfter = performance.now() - blockedAt;
          break;
        }
        expect(status).toBe(200);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(refusedAfter).toBeLessThan(1_000);
    }
    // An address nobody blocked is still served, by both.
    for (const api of apis) expect((await signedFetch(api.url, STRANGER, 'GET', PATH, undefined, from('203.0.113.9'))).status).toBe(200);
  }, 90_000);
});
