import { createServer, type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/command.ts';
import { main } from '../../src/cli/main.ts';
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

function capture(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (l) => stdout.push(l), err: (l) => stderr.push(l) };
}

describe('fulfil call', () => {
  let t: TestService;
  const savedEnv = { token: process.env.FULFIL_TOKEN, secret: process.env.FULFIL_SECRET };
  beforeAll(async () => {
    t = await startTestService();
    await t.seed(baseFixture());
  });
  afterEach(() => {
    for (const [name, value] of [
      ['FULFIL_TOKEN', savedEnv.token],
      ['FULFIL_SECRET', savedEnv.secret],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('signs a GET and prints the status line and the pretty JSON body; exit 0', async () => {
    const io = capture();
    const code = await main(
      ['call', 'GET', '/v9/credentials/current', '--token', SELLER_USER.token, '--secret', SELLER_USER.secret, '--base', t.url],
      io,
    );
    expect(io.stderr).toEqual([]);
    expect(code).toBe(0);
    const body = { token: SELLER_USER.token, kind: 'user', brokerage_id: 1, user_id: 100 };
    expect(io.stdout).toEqual(['200 OK', JSON.stringify(body, null, 2)]);
  });

  it('signs a POST with a JSON body and a query-bearing path', async () => {
    const io = capture();
    const code = await main(
      ['call', 'post', '/v9/credentials/current/verify', '{"a":[1,2]}', '--token', BUYER.token, '--secret', BUYER.secret, '--base', t.url],
      io,
    );
    expect(code).toBe(0);
    expect(io.stdout).toEqual(['200 OK', '{\n  "ok": true\n}']);
    const q = capture();
    expect(
      await main(
        [
          'call',
          'GET',
          '/v9/credentials/current?page[items]=2&page[cursor]=1',
          '--token',
          BUYER.token,
          '--secret',
          BUYER.secret,
          '--base',
          t.url,
        ],
        q,
      ),
    ).toBe(0);
  });

  it('reads FULFIL_TOKEN and FULFIL_SECRET when the flags are absent', async () => {
    process.env.FULFIL_TOKEN = BUYER.token;
    process.env.FULFIL_SECRET = BUYER.secret;
    const io = capture();
    expect(await main(['call', 'GET', '/v9/credentials/current', '--base', t.url], io)).toBe(0);
    expect(JSON.parse(io.stdout.slice(1).join('\n'))).toMatchObject({ token: BUYER.token, brokerage_id: 2 });
  });

  it('exit 1 and the error body on a non-2xx answer', async () => {
    const io = capture();
    const code = await main(
      ['call', 'GET', '/v9/credentials/current', '--token', BUYER.token, '--secret', SELLER_USER.secret, '--base', t.url],
      io,
    );
    expect(code).toBe(1);
    expect(io.stdout[0]).toBe('401 Unauthorized');
    expect(JSON.parse(io.stdout.slice(1).join('\n'))).toEqual({ errors: [{ code: 'unauthorized', message: 'invalid credentials' }] });
  });

  it('sends a malformed body as typed: the server answers 400, exit 1', async () => {
    const io = capture();
    const code = await main(
      ['call', 'PUT', '/v9/credentials/current/verify', '{"a":', '--token', BUYER.token, '--secret', BUYER.secret, '--base', t.url],
      io,
    );
    expect(code).toBe(1);
    expect(io.stdout[0]).toBe('400 Bad Request');
    expect(io.stdout[1]).toContain('"invalid_params"');
  });

  it('without credentials: a usage error naming both ways to give them, exit 2', async () => {
    delete process.env.FULFIL_TOKEN;
    delete process.env.FULFIL_SECRET;
    const io = capture();
    expect(await main(['call', 'GET', '/v9/credentials/current', '--base', t.url], io)).toBe(2);
    expect(io.stderr.join('\n')).toContain('FULFIL_TOKEN');
    expect(io.stdout).toEqual([]);
  });

  it('a service that is not there: one line saying so and what to do, no stack trace; exit 1', async () => {
    const closed = await freePort();
    const io = capture();
    const code = await main(
      ['call', 'GET', '/v9/credentials/current', '--token', BUYER.token, '--secret', BUYER.secret, '--base', `http://127.0.0.1:${closed}`],
      io,
    );
    expect(code).toBe(1);
    expect(io.stdout).toEqual([]);
    expect(io.stderr).toEqual([`fulfil call: cannot reach http://127.0.0.1:${closed} (connection refused); set --base or PORT`]);

    // Without --base it names the default address, from PORT.
    const saved = process.env.PORT;
    process.env.PORT = String(closed);
    try {
      const byPort = capture();
      expect(await main(['call', 'GET', '/v9/credentials/current', '--token', BUYER.token, '--secret', BUYER.secret], byPort)).toBe(1);
      expect(byPort.stderr.join('\n')).toBe(
        `fulfil call: cannot reach http://127.0.0.1:${closed} (connection refused); set --base or PORT`,
      );
    } finally {
      if (saved === undefined) delete process.env.PORT;
      else process.env.PORT = saved;
    }
  });

  it('a path without a leading slash is a usage error', async () => {
    const io = capture();
    expect(await main(['call', 'GET', 'v9/credentials/current', '--token', BUYER.token, '--secret', BUYER.secret], io)).toBe(2);
  });

  it('--help shows usage and the environment variables', async () => {
    const io = capture();
    expect(await main(['call', '--help'], io)).toBe(0);
    expect(io.stdout.join('\n')).toMatch(/usage: fulfil call <METHOD> <path> \[json\]/);
    expect(io.stdout.join('\n')).toContain('FULFIL_SECRET');
  });
});
