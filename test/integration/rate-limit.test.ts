import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { baseFixture, BUYER, SELLER, STRANGER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

describe('per-credential rate limit', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { RATE_LIMIT_PER_MINUTE: '3', AUTH_FAILURES_PER_MINUTE: '5' } });
    await t.seed(baseFixture());
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answers 429 rate_limited with Retry-After past the limit, for that credential only', async () => {
    const call = apiClient(t.url);
    // Near a minute boundary the window could turn over mid-test; wait it out.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 55_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
    for (let i = 0; i < 3; i++) expect((await call(SELLER, 'GET', '/v9/credentials/current')).status).toBe(200);
    const limited = await call(SELLER, 'GET', '/v9/credentials/current');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ errors: [{ code: 'rate_limited', message: expect.stringMatching(/retry after \d+ s/) }] });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await call(BUYER, 'GET', '/v9/credentials/current')).status).toBe(200);
  }, 90_000);

  it('stops an address that keeps failing authentication before looking up any credential', async () => {
    const call = apiClient(t.url);
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 55_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
    const forged = { token: STRANGER.token, secret: 'not-the-secret-000000000000000000000000' };
    for (let i = 0; i < 5; i++) expect((await call(forged, 'GET', '/v9/credentials/current')).status).toBe(401);
    const blocked = await call(forged, 'GET', '/v9/credentials/current');
    expect(blocked.status).toBe(429);
    expect(blocked.body.errors[0].code).toBe('rate_limited');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The address is blocked as a whole, valid credentials included, until the window turns.
    expect((await call(STRANGER, 'GET', '/v9/credentials/current')).status).toBe(429);
  }, 90_000);
});

describe('limits set to 0 are off', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { RATE_LIMIT_PER_MINUTE: '0', AUTH_FAILURES_PER_MINUTE: '0' } });
    await t.seed(baseFixture());
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('AUTH_FAILURES_PER_MINUTE=0 and RATE_LIMIT_PER_MINUTE=0 refuse nothing, however many failures', async () => {
    const call = apiClient(t.url);
    // Before the fix, a count of 0 against a limit of 0 answered every /v9 request 429.
    expect((await call(SELLER, 'GET', '/v9/credentials/current')).status).toBe(200);
    const forged = { token: STRANGER.token, secret: 'not-the-secret-000000000000000000000000' };
    for (let i = 0; i < 30; i++) expect((await call(forged, 'GET', '/v9/credentials/current')).status).toBe(401);
    for (let i = 0; i < 30; i++) expect((await call(SELLER, 'GET', '/v9/credentials/current')).status).toBe(200);
  }, 60_000);
});
