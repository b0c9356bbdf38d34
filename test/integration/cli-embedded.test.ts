import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedService } from '../support/built-service.ts';
import { runBuiltCli } from '../support/cli.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { testPrefix } from '../support/redis.ts';

const FIXTURE = path.resolve(import.meta.dirname, '../../fixtures/demo.json');

/**
 * The quick start as a user has it: `fulfil start --seed` on the embedded database (no
 * DATABASE_URL), then CLI commands in another process while it runs.
 */
describe('the CLI next to a running service on the embedded database', () => {
  let service: Awaited<ReturnType<typeof startEmbeddedService>>;
  const prefix = testPrefix();

  const cli = (...args: string[]) => runBuiltCli(service.env, args);

  beforeAll(async () => {
    service = await startEmbeddedService({ prefix, seed: FIXTURE });
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
  }, 60_000);

  it('`fulfil start --seed` beside the running service points to `fulfil seed`, not to the command just typed', async () => {
    const second = await cli('start', '--seed', FIXTURE);
    expect(second.code).toBe(1);
    const said = `${second.out}${second.err}`;
    expect(said).toMatch(/in use by process \d+/);
    expect(said).toContain('run `fulfil seed <file>` in another shell');
    expect(said).not.toContain('fulfil start --seed');
  });

  it('lists, creates and revokes credentials through the service', async () => {
    const list = await cli('credentials', 'list');
    expect(list.err).toBe('');
    expect(list.code).toBe(0);
    expect(list.out).toContain('DNxril3RavGD5MfvJ7NScUykT8C8UBkk');
    const created = await cli('credentials', 'create', '--brokerage', '1', '--json');
    expect(created.code).toBe(0);
    const { token } = JSON.parse(created.out) as { token: string };
    expect((await cli('credentials', 'list')).out).toContain(token);
    expect((await cli('credentials', 'revoke', token)).out).toContain(`revoked ${token}`);
  });

  it('exports, imports and prints shipment history while the service runs', async () => {
    const file = path.join(service.dir, 'office-10.jsonl');
    const exported = await cli('inventory', 'export', '10', '--detailed', '--out', file);
    expect(exported.code).toBe(0);
    expect(exported.err).toMatch(/exported \d+ records of office 10/);
    const imported = await cli('inventory', 'import', '10', file);
    expect(imported.code).toBe(0);
    expect(imported.out).toMatch(/imported \d+ records into office 10/);
    const none = await cli('shipments', 'history', '999999');
    expect(none.code).toBe(1);
    expect(none.err).toContain('no shipment 999999');
    expect((await cli('migrate')).out).toContain('by the running service');
  });

  it('lists jobs with times and says which Redis and prefix it read', async () => {
    const list = await cli('jobs', 'list', '--state', 'completed');
    expect(list.code).toBe(0);
    expect(list.out.split('\n')[0]).toBe(
      `completed jobs in ${TEST_REDIS_URL.replace(/\/$/, '')} (REDIS_URL), prefix ${prefix}, queues commands, inventory, fulfil-webhooks`,
    );
    // Times as everywhere else: ISO 8601 in UTC, to the second.
    expect(list.out).toMatch(/inventory\s+c-\S+\s+inventory\.upsert\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
  });
});
