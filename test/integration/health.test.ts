import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { proxiedDatabaseUrl } from '../support/tcp-proxy.ts';

describe('health endpoints', () => {
  let t: TestService;
  const cleanups: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
    await t?.stop();
  });

  it('livez answers ok with a request id', async () => {
    const res = await fetch(`${t.url}/livez`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(res.headers.get('x-request-id')).toMatch(/.+/);
  });

  it('readyz reports postgres and redis', async () => {
    const res = await fetch(`${t.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('readyz says only "down" for a failed check: the reason (hosts, ports) stays in the log', async () => {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    const { proxy, url } = await proxiedDatabaseUrl(db.url);
    cleanups.push(() => proxy.close());
    const down = await startTestService({ db, roles: { api: true, worker: false }, env: { DATABASE_URL: url } });
    // Stopped with Postgres reachable again, so closing the pool does not wait on a dead link.
    cleanups.push(
      () => down.stop(),
      () => proxy.restore(),
    );

    proxy.cut();
    const res = await fetch(`${down.url}/readyz`);
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ status: 'unavailable', checks: { postgres: 'down', redis: 'ok' } });
    expect(text).not.toContain(String(proxy.port));
  });

  it('unknown paths answer 404 in the contract error shape', async () => {
    const res = await fetch(`${t.url}/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ errors: [{ code: 'not_found', message: 'no route for GET /nope' }] });
  });
});
