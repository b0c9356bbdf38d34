import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startService } from '../../src/service.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { startTestService, TEST_SECRET_KEY, type TestService } from '../support/service.ts';

const TOKEN = 'c3f1e9a07b5d42e8a61f0d9c2b7e4a53';

/** A request from a given loopback address: 127.0.0.2, 127.0.0.3 … stand for other hosts. */
function request(url: string, opts: { from?: string; token?: string; host?: string } = {}) {
  const u = new URL(url);
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const req = http.request(
      {
        host: opts.host ?? u.hostname,
        port: u.port,
        path: u.pathname,
        localAddress: opts.from ?? '127.0.0.1',
        headers: opts.token === undefined ? {} : { authorization: `Bearer ${opts.token}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function guess(url: string, from: string, times: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) statuses.push((await request(url, { from, token: `wrong-${i}` })).status);
  return statuses;
}

describe('the ops surface', () => {
  let api: TestService;
  let worker: TestService;
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    const env = { OPS_TOKEN: TOKEN, AUTH_FAILURES_PER_MINUTE: '5' };
    api = await startTestService({ db, env });
    worker = await startTestService({ db, prefix: api.prefix, roles: { api: false, worker: true }, env });
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
    await db?.drop();
  });

  it('limits wrong ops-token guesses per address on /metrics and /ops/*: 429, while other addresses still get in', async () => {
    const attacker = '127.0.0.2';
    expect(await guess(`${api.url}/metrics`, attacker, 5)).toEqual([401, 401, 401, 401, 401]);
    expect((await request(`${api.url}/ops/queues`, { from: attacker, token: 'wrong-again' })).status).toBe(429);
    expect((await request(`${api.url}/metrics`, { from: attacker, token: TOKEN })).status).toBe(429);
    // Another address is not punished for the attacker's guesses.
    expect((await request(`${api.url}/metrics`, { from: '127.0.0.3', token: TOKEN })).status).toBe(200);
  });

  it('guards a worker’s /metrics with the same token and the same limit', async () => {
    const url = `${worker.service.metricsUrl}/metrics`;
    expect((await request(url, { from: '127.0.0.4' })).status).toBe(401);
    expect(await guess(url, '127.0.0.4', 4)).toEqual([401, 401, 401, 401]);
    expect((await request(url, { from: '127.0.0.4', token: 'wrong' })).status).toBe(429);
    expect((await request(url, { from: '127.0.0.5', token: TOKEN })).status).toBe(200);
  });

  it('forbids framing /ops/* pages, refusals included', async () => {
    for (const token of [TOKEN, undefined]) {
      const page = await request(`${api.url}/ops/orders`, { from: '127.0.0.6', ...(token ? { token } : {}) });
      expect(page.status).toBe(token ? 200 : 401);
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    }
    const board = await request(`${api.url}/ops/queues`, { from: '127.0.0.6', token: TOKEN });
    expect(board.status).toBe(200);
    expect(board.headers['x-frame-options']).toBe('DENY');
    expect(board.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
  });
});

describe('where the service listens, and with what token', () => {
  it('binds loopback by default outside production: another address of the host reaches nothing', async () => {
    const t = await startTestService({ env: { HOST: '' } });
    try {
      expect(t.config.HOST).toBe('127.0.0.1');
      const port = new URL(t.url).port;
      expect((await request(`http://127.0.0.1:${port}/ops/queues`)).status).toBe(200);
      // On 0.0.0.0 this answered 200 to any address of the host, with no token.
      await expect(request(`http://127.0.0.2:${port}/ops/queues`, { from: '127.0.0.2' })).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await t.stop();
    }
    expect(loadConfig({ NODE_ENV: 'production' }).HOST).toBe('0.0.0.0');
  });

  it('refuses an open ops surface on an address that is not loopback', async () => {
    const open = loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/x', REDIS_URL: TEST_REDIS_URL, HOST: '0.0.0.0' });
    for (const roles of [
      { api: true, worker: false },
      { api: false, worker: true },
    ]) {
      const started = startService(open, roles);
      await expect(started).rejects.toBeInstanceOf(ConfigError);
      await expect(started).rejects.toThrow(/OPS_TOKEN: required to listen on HOST=0\.0\.0\.0/);
    }
  });

  it('refuses to start in production without a strong OPS_TOKEN, in either role', async () => {
    const production = {
      NODE_ENV: 'production',
      FULFIL_SECRET_KEY: TEST_SECRET_KEY,
      DATABASE_URL: 'postgres://x@127.0.0.1/x',
      REDIS_URL: TEST_REDIS_URL,
    };
    for (const weak of ['a', 'ops-secret', 'ab'.repeat(20)]) {
      expect(() => loadConfig({ ...production, OPS_TOKEN: weak })).toThrow(/OPS_TOKEN: must be at least 32 characters/);
    }
    expect(loadConfig({ ...production, OPS_TOKEN: TOKEN }).OPS_TOKEN).toBe(TOKEN);
    for (const roles of [
      { api: true, worker: false },
      { api: false, worker: true },
    ]) {
      await expect(startService(loadConfig(production), roles)).rejects.toThrow(/OPS_TOKEN: required when NODE_ENV=production/);
    }
    // Outside production a short token is the developer's business.
    expect(loadConfig({ OPS_TOKEN: 'a' }).OPS_TOKEN).toBe('a');
  });
});
