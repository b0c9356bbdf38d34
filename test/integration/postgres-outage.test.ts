import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../chaos/cluster.ts';
import { chaosFixture, FIRST_ORDER, SELLER } from '../../chaos/flows.ts';
import { signedFetch } from '../../src/auth/signed-fetch.ts';

// Real processes on a private Postgres that stops answering (SIGSTOP) or stops: the API answers
// in bounded time in the contract's shape, and its log never carries a token or a parameter.

describe('when Postgres hangs or goes away', () => {
  let c: Cluster;
  beforeAll(async () => {
    c = await startCluster({
      workers: 1,
      env: { HTTP_HANDLER_TIMEOUT_MS: '3000', COMMAND_WAIT_MS: '1000', DATABASE_CONNECT_TIMEOUT_MS: '1000' },
    });
    await c.seed(chaosFixture(4));
  }, 120_000);
  afterAll(async () => {
    c?.pg.thaw();
    await c?.stop();
  }, 120_000);

  // A read that needs Postgres: authentication alone may be served from the process's credential
  // cache (src/auth/credential-cache.ts), so the credential route is no probe of Postgres.
  const PROBE = `/v9/orders/${FIRST_ORDER}`;
  const timed = async (method: string, path: string, body?: object) => {
    const started = Date.now();
    const res = await signedFetch(c.apiUrl, SELLER, method, path, body, {}, AbortSignal.timeout(20_000));
    return { status: res.status, body: (await res.json()) as any, ms: Date.now() - started };
  };

  it('a Postgres that does not answer: 503 unavailable within the handler timeout, on warm and new connections', async () => {
    expect((await timed('GET', PROBE)).status).toBe(200);
    c.pg.freeze();
    try {
      const answers = await Promise.all([
        timed('GET', PROBE),
        timed('POST', `/v9/orders/${FIRST_ORDER}/accept`, { reviewer_id: 100 }),
        ...Array.from({ length: 12 }, () => timed('GET', PROBE)),
      ]);
      for (const a of answers) {
        expect(a.status).toBe(503);
        expect(a.body).toEqual({ errors: [{ code: 'unavailable', message: expect.any(String) }] });
        expect(a.ms).toBeLessThan(6_000);
      }
    } finally {
      c.pg.thaw();
    }
    let back = await timed('GET', PROBE);
    for (let i = 0; i < 40 && back.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 250));
      back = await timed('GET', PROBE);
    }
    expect(back.status).toBe(200);
  }, 60_000);

  it('a stopped Postgres: 503 at once; the log carries neither the token nor any query parameter', async () => {
    c.pg.stop('fast');
    try {
      for (let i = 0; i < 5; i++) {
        const a = await timed('GET', `${PROBE}?probe=${i}`);
        expect(a.status).toBe(503);
        expect(a.body.errors[0].code).toBe('unavailable');
        expect(a.ms).toBeLessThan(3_000);
      }
    } finally {
      c.pg.start();
    }
    await new Promise((r) => setTimeout(r, 300));
    const log = readFileSync(c.api.logFile, 'utf8');
    // The failure was logged (operators need it), without the token's full text or parameters.
    expect(log).toMatch(/"level":40.*unavailable|service temporarily unavailable/);
    expect(log).not.toContain(SELLER.token);
    expect(log).not.toMatch(/params: (?!\[redacted\])/);
    expect(log).not.toMatch(/"params":\[/);
    expect(log).not.toContain('probe=');
    expect(c.crashes()).toEqual([]);
  }, 60_000);
});
