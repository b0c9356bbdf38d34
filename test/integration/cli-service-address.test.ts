import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/redis/private-server.ts';
import { runCli } from '../support/cli.ts';
import { baseFixture, BUYER, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

// `fulfil call` in a second shell finds the service of its DATA_DIR on whatever port it took
// (docs/DECISIONS.md D-134), --base still wins; -H sends headers such as Idempotency-Key; a
// refused `shipments etickets get` is a sentence, not a JSON line.

const ORDER = 975;

describe('the CLI and the running service', () => {
  let t: TestService;
  let wrongPort: number;
  beforeAll(async () => {
    t = await startTestService();
    await t.seed(baseFixture([ORDER]));
    wrongPort = await freePort(); // nothing listens there: PORT of this shell is not the service's
  });
  afterAll(async () => {
    await t?.stop();
  });

  const env = (cred = SELLER) => ({
    DATA_DIR: t.config.DATA_DIR,
    PORT: String(wrongPort),
    FULFIL_TOKEN: cred.token,
    FULFIL_SECRET: cred.secret,
  });

  it('finds the service by the address it left in DATA_DIR; --base still wins', async () => {
    const found = await runCli(['call', 'GET', `/v9/orders/${ORDER}`], env());
    expect(found.stderr).toBe('200 OK\n');
    expect(found.code).toBe(0);
    const based = await runCli(['call', 'GET', `/v9/orders/${ORDER}`, '--base', `http://127.0.0.1:${wrongPort}`], env());
    expect(based.code).toBe(1);
    expect(based.text).toBe(`fulfil call: cannot reach http://127.0.0.1:${wrongPort} (connection refused); set --base or PORT`);
  });

  it('-H sends a header with the signed request: Idempotency-Key', async () => {
    const key = ['-H', 'Idempotency-Key: cli-accept-1'];
    const first = await runCli(['call', 'POST', `/v9/orders/${ORDER}/accept`, '{"reviewer_id":100}', ...key], env());
    expect(first.stderr).toBe('200 OK\n');
    const other = await runCli(['call', 'POST', `/v9/orders/${ORDER}/accept`, '{"reviewer_id":100,"seats":[1,2]}', ...key], env());
    expect(other.code).toBe(1);
    expect(other.stderr).toBe('409 Conflict\n');
    expect(other.stdout).toContain('idempotency_conflict');
    const bad = await runCli(['call', 'GET', '/v9/orders', '-H', 'no colon'], env());
    expect(bad.code).toBe(2);
    expect(bad.text).toContain("-H: expected 'Name: value'");
  });

  it('`shipments etickets get` of an unknown e-ticket says so in a sentence', async () => {
    const got = await runCli(['shipments', 'etickets', 'get', '999999', '1'], env(BUYER));
    expect(got.code).toBe(1);
    expect(got.lines).toHaveLength(1);
    expect(got.text).toMatch(/^fulfil shipments etickets get: 404 Not Found: \S.*/);
    expect(got.text).not.toContain('{');
  });
});
