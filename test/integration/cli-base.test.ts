import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inventoryPlace } from '@fulfil/contract';
import { apiClient } from '../support/api.ts';
import { completedEticketOrder } from '../support/delivery-issue-flow.ts';
import { baseFixture, BUYER } from '../support/fixtures.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { startTestService, type TestService } from '../support/service.ts';

// Issue 54, finding 1 (D-169, D-177): `--base <url>` names the service for the commands that
// enqueue too, as it does for `fulfil call`; the service tells its queues to the operator's
// token. An inventory batch nobody takes up in time exits 3, as `issues close` does.

const BIN = path.resolve(import.meta.dirname, '../../bin/fulfil.mjs');
const OPS_TOKEN = 'ops-token-of-the-cli-base-test-0123456789';

function cli(env: NodeJS.ProcessEnv, args: string[], deadlineMs = 20_000): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, ...env }, timeout: deadlineMs }, (error, out, err) => {
      const e = error as (Error & { code?: number; killed?: boolean }) | null;
      resolve({ code: e ? (e.killed ? -1 : (e.code ?? 1)) : 0, out, err });
    });
  });
}

describe('the CLI given --base, away from the service (another DATA_DIR, a misleading REDIS_URL)', () => {
  let t: TestService;
  let elsewhere: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    t = await startTestService({ env: { OPS_TOKEN, OPS_WRITE: 'true' } });
    await t.seed(baseFixture([991]));
    elsewhere = mkdtempSync(path.join(tmpdir(), 'fulfil-cli-base-'));
    // Without --base these would send to a Redis nobody reads (port 1) under the default prefix.
    env = { DATA_DIR: elsewhere, DATABASE_URL: t.db.url, REDIS_URL: 'redis://127.0.0.1:1', OPS_TOKEN };
  });
  afterAll(async () => {
    await t?.stop();
    if (elsewhere) rmSync(elsewhere, { recursive: true, force: true });
  });

  it('issues close --base closes the issue, answered in seconds', async () => {
    const call = apiClient(t.url);
    await completedEticketOrder(call, 991);
    const opened = await call(BUYER, 'POST', '/v9/orders/991/delivery_issues', { reason: 'not_received' });
    expect(opened.status).toBe(201);
    expect((await call(BUYER, 'POST', `/v9/delivery_issues/${opened.body.id}/escalate`, {})).status).toBe(200);
    const closed = await cli(env, ['issues', 'close', String(opened.body.id), '--outcome', 'no_fault', '--base', t.url]);
    expect(closed).toEqual({ code: 0, out: `issue ${opened.body.id} closed: no_fault\n`, err: '' });
  });

  it('a wrong OPS_TOKEN, or a service that is not there, fails at once with a sentence', async () => {
    const wrong = await cli({ ...env, OPS_TOKEN: 'not-the-token' }, ['issues', 'close', '1', '--outcome', 'no_fault', '--base', t.url]);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toBe(
      `fulfil issues close: the service at ${new URL(t.url).origin} (--base) wants OPS_TOKEN: set it as the service has it. Nothing was sent.\n`,
    );
    const gone = await cli(env, ['jobs', 'retry', 'x', '--base', 'http://127.0.0.1:1']);
    expect(gone.code).toBe(1);
    expect(gone.err).toMatch(/^fulfil jobs retry: cannot reach the service at http:\/\/127\.0\.0\.1:1 \(--base\)/);
  });

  it('jobs list and retry --base read the queues of that service', async () => {
    const listed = await cli(env, ['jobs', 'list', '--base', t.url]);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(`(--base ${new URL(t.url).origin}), prefix ${t.prefix}`);
    const retried = await cli(env, ['jobs', 'retry', 'no-such-job', '--base', t.url]);
    expect(retried.code).toBe(1);
    expect(retried.err).toContain(`not retried no-such-job: no such job in ${TEST_REDIS_URL}`);
  });

  it('inventory import --base imports; a batch nobody takes up within --wait exits 3, never waits on', async () => {
    const file = path.join(elsewhere, 'groups.jsonl');
    writeFileSync(file, `${JSON.stringify({ remote_id: 7001, quantity: 2, price: '10' })}\n`);
    const imported = await cli(env, ['inventory', 'import', '20', file, '--base', t.url]);
    expect(imported).toMatchObject({ code: 0, out: 'imported 1 records into office 20 in 1 batch\n' });

    const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const place = inventoryPlace(t.prefix);
    const queue = new Queue(place.name, { prefix: place.prefix, connection });
    await queue.pause(); // the workers stay connected and take nothing
    try {
      const waited = await cli(env, ['inventory', 'import', '20', file, '--base', t.url, '--wait', '1']);
      expect(waited.code).toBe(3);
      expect(waited.out).toBe('');
      expect(waited.err).toMatch(/fulfil inventory import: batch 1: no answer within 1 s; it stays queued \(command [^)]+\)/);
    } finally {
      await queue.resume();
      await queue.close();
      connection.disconnect();
    }
  });
});

describe('a service whose operators may not change things (no OPS_WRITE)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { OPS_TOKEN } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('does not tell its queues, and the CLI says so', async () => {
    const res = await fetch(`${t.url}/ops/queue_address`, { headers: { authorization: `Bearer ${OPS_TOKEN}` } });
    expect(res.status).toBe(403);
    const told = await cli({ DATA_DIR: t.config.DATA_DIR, DATABASE_URL: t.db.url, OPS_TOKEN }, ['jobs', 'list', '--base', t.url]);
    expect(told.code).toBe(1);
    expect(told.err).toMatch(/did not tell its queues: this service does not let operators change things \(OPS_WRITE is off\)/);
  });

  it("the operators' label link (D-179) wants OPS_TOKEN as every ops page does", async () => {
    expect((await fetch(`${t.url}/ops/shipments/1/airbill`)).status).toBe(401);
    const bad = await fetch(`${t.url}/ops/shipments/1/airbill`, { headers: { authorization: `Basic ${btoa(`ops:${OPS_TOKEN}`)}` } });
    expect(bad.status).toBe(404);
    expect(((await bad.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).toBe('shipment 1 has no label');
  });
});
