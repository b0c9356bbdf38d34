import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

describe('health endpoints', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => {
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

  it('unknown paths answer 404 in the contract error shape', async () => {
    const res = await fetch(`${t.url}/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ errors: [{ code: 'not_found', message: 'no route for GET /nope' }] });
  });
});
