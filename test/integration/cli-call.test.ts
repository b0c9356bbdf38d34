import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { baseFixture, BUYER, SELLER_USER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** A port nothing listens on: bound, then released. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// The built bin, as users run it; no credentials in the environment unless a test gives them.
const call = (args: string[], env: Record<string, string | undefined> = {}) =>
  runCli(['call', ...args], { FULFIL_TOKEN: undefined, FULFIL_SECRET: undefined, ...env });

describe('fulfil call', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
    await t.seed(baseFixture());
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('signs a GET: the status line on stderr, the body alone on stdout, byte for byte; exit 0', async () => {
    const r = await call(['GET', '/v9/credentials/current', '--token', SELLER_USER.token, '--secret', SELLER_USER.secret, '--base', t.url]);
    expect(r.stderr).toBe('200 OK\n');
    expect(r.code).toBe(0);
    const body = { token: SELLER_USER.token, kind: 'user', livemode: true, brokerage_id: 1, user_id: 100 };
    expect(r.stdout).toBe(JSON.stringify(body));
  });

  it('signs a POST with a JSON body and a query-bearing path', async () => {
    const r = await call([
      'post',
      '/v9/credentials/current/verify',
      '{"a":[1,2]}',
      '--token',
      BUYER.token,
      '--secret',
      BUYER.secret,
      '--base',
      t.url,
    ]);
    expect(r.code).toBe(0);
    expect([r.stderr, r.stdout]).toEqual(['200 OK\n', '{"ok":true}']);
    const q = await call([
      'GET',
      '/v9/credentials/current?page[items]=2&page[cursor]=1',
      '--token',
      BUYER.token,
      '--secret',
      BUYER.secret,
      '--base',
      t.url,
    ]);
    expect(q.code).toBe(0);
  });

  it('reads FULFIL_TOKEN and FULFIL_SECRET when the flags are absent', async () => {
    const r = await call(['GET', '/v9/credentials/current', '--base', t.url], { FULFIL_TOKEN: BUYER.token, FULFIL_SECRET: BUYER.secret });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ token: BUYER.token, brokerage_id: 2 });
  });

  it('exit 1 and the error body on a non-2xx answer', async () => {
    const r = await call(['GET', '/v9/credentials/current', '--token', BUYER.token, '--secret', SELLER_USER.secret, '--base', t.url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('401 Unauthorized\n');
    expect(JSON.parse(r.stdout)).toEqual({ errors: [{ code: 'unauthorized', message: 'invalid credentials' }] });
  });

  it('sends a malformed body as typed: the server answers 400, exit 1', async () => {
    const r = await call([
      'PUT',
      '/v9/credentials/current/verify',
      '{"a":',
      '--token',
      BUYER.token,
      '--secret',
      BUYER.secret,
      '--base',
      t.url,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('400 Bad Request\n');
    expect(r.stdout).toContain('"invalid_params"');
  });

  it('without credentials: a usage error naming both ways to give them, exit 2', async () => {
    const r = await call(['GET', '/v9/credentials/current', '--base', t.url]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('FULFIL_TOKEN');
    expect(r.stdout).toBe('');
  });

  it('a service that is not there: one line saying so and what to do, no stack trace; exit 1', async () => {
    const closed = await freePort();
    const r = await call([
      'GET',
      '/v9/credentials/current',
      '--token',
      BUYER.token,
      '--secret',
      BUYER.secret,
      '--base',
      `http://127.0.0.1:${closed}`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`fulfil call: cannot reach http://127.0.0.1:${closed} (connection refused); set --base or PORT\n`);

    // Without --base it names the default address, from PORT.
    const byPort = await call(['GET', '/v9/credentials/current', '--token', BUYER.token, '--secret', BUYER.secret], {
      PORT: String(closed),
    });
    expect(byPort.code).toBe(1);
    expect(byPort.stderr).toBe(`fulfil call: cannot reach http://127.0.0.1:${closed} (connection refused); set --base or PORT\n`);
  });

  it('a path without a leading slash is a usage error', async () => {
    expect((await call(['GET', 'v9/credentials/current', '--token', BUYER.token, '--secret', BUYER.secret])).code).toBe(2);
  });

  it('--help shows usage and the environment variables', async () => {
    const r = await call(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/usage: fulfil call <METHOD> <path> \[json\]/);
    expect(r.stdout).toContain('FULFIL_SECRET');
  });
});
