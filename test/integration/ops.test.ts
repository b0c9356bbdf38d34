import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startService } from '../../src/service.ts';
import { runCli } from '../support/cli.ts';
import { apiClient } from '../support/api.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

describe('operator tools', () => {
  let t: TestService;
  let redis: Redis;
  let queue: Queue;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await startTestService({ env: { OPS_TOKEN: 'ops-secret' } });
    await t.seed(baseFixture());
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    queue = new Queue('commands', { prefix: t.prefix, connection: redis });
    // The CLI reads the same configuration as the service.
    env = {
      DATABASE_URL: t.db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: t.prefix,
      LOG_LEVEL: 'silent',
      FULFIL_SECRET_KEY: t.config.FULFIL_SECRET_KEY!,
    };
  });
  afterAll(async () => {
    await queue?.close();
    redis?.disconnect();
    await t?.stop();
  });

  async function failedJob(id: string) {
    // An envelope with no actor: the runner throws, which is what a bug or a poisoned job does.
    await queue.add('order.accept', { commandId: id, payload: {} }, { jobId: id, attempts: 1 });
    for (let i = 0; i < 100 && (await (await queue.getJob(id))!.getState()) !== 'failed'; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await (await queue.getJob(id))!.getState()).toBe('failed');
  }

  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const UNAUTHORIZED = { errors: [{ code: 'unauthorized', message: expect.stringMatching(/OPS_TOKEN/) }] };

  it('metrics want the ops token when one is set', async () => {
    const bare = await fetch(`${t.url}/metrics`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe('Bearer realm="fulfil ops"');
    expect(await bare.json()).toEqual(UNAUTHORIZED);
    expect((await fetch(`${t.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    // The token is the whole secret: a prefix of it, or it with something appended, is refused.
    expect((await fetch(`${t.url}/metrics`, { headers: { authorization: 'Bearer ops-secre' } })).status).toBe(401);
    expect((await fetch(`${t.url}/metrics`, { headers: { authorization: 'Bearer ops-secret2' } })).status).toBe(401);
    // Prometheus may also use basic_auth.
    expect((await fetch(`${t.url}/metrics`, { headers: { authorization: basic('prometheus', 'ops-secret') } })).status).toBe(200);
  });

  it('the queue board asks a browser for the token (Basic, any user name) and ignores ?token=', async () => {
    for (const path of ['/ops/queues', '/ops/queues/api/queues', '/ops/queues/static/favicon-32x32.png', '/ops/orders/700']) {
      const bare = await fetch(`${t.url}${path}`);
      expect(bare.status).toBe(401);
      expect(bare.headers.get('www-authenticate')).toBe('Basic realm="fulfil ops"');
      expect(await bare.json()).toEqual(UNAUTHORIZED);
    }
    // A token in the query string would land in request logs and browser history: not accepted.
    const query = await fetch(`${t.url}/ops/queues?token=ops-secret`);
    expect(query.status).toBe(401);
    expect(await query.json()).toEqual(UNAUTHORIZED);
    expect((await fetch(`${t.url}/ops/queues`, { headers: { authorization: basic('ops', 'wrong') } })).status).toBe(401);
    expect((await fetch(`${t.url}/ops/queues`, { headers: { authorization: basic('ops-secret', '') } })).status).toBe(401);

    for (const authorization of [basic('anyone', 'ops-secret'), basic('', 'ops-secret'), 'Bearer ops-secret', 'bearer ops-secret']) {
      const page = await fetch(`${t.url}/ops/queues`, { headers: { authorization } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      expect(html).toContain('<title>fulfil queues</title>');
      // Served whole from here: no font or script from anywhere else.
      expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
    }
  });

  it('the board lists every queue of the service and is read-only without OPS_WRITE', async () => {
    const auth = { authorization: basic('ops', 'ops-secret') };
    const res = await fetch(`${t.url}/ops/queues/api/queues?activeQueue=commands&status=failed&page=1`, { headers: auth });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { queues: Array<{ name: string; readOnlyMode: boolean }> };
    expect(body.queues.map((q) => q.name).sort()).toEqual(['commands', 'fulfil-webhooks', 'inventory']);
    expect(body.queues.every((q) => q.readOnlyMode)).toBe(true);
    await failedJob('read-only-1');
    // Neither retrying nor cleaning goes through, and the job stays failed.
    for (const [method, path] of [
      ['PUT', '/ops/queues/api/queues/commands/read-only-1/retry'],
      ['PUT', '/ops/queues/api/queues/commands/retry/failed'],
      ['PUT', '/ops/queues/api/queues/commands/clean/failed'],
      ['PUT', '/ops/queues/api/queues/commands/read-only-1/clean'],
      ['PUT', '/ops/queues/api/queues/commands/obliterate'],
      ['POST', '/ops/queues/api/queues/commands/add'],
    ] as const) {
      const refused = await fetch(`${t.url}${path}`, { method, headers: auth });
      expect(refused.status).toBe(405);
      expect(((await refused.json()) as { errors: Array<{ code: string; message: string }> }).errors[0]).toMatchObject({
        code: 'method_not_allowed',
        message: expect.stringMatching(/OPS_WRITE=true/),
      });
    }
    expect(await (await queue.getJob('read-only-1'))!.getState()).toBe('failed');
  });

  it('refuses to start the API in production without OPS_TOKEN; the CLI needs none', async () => {
    for (const OPS_TOKEN of [undefined, '', '   ']) {
      const config = loadConfig({
        NODE_ENV: 'production',
        FULFIL_SECRET_KEY: t.config.FULFIL_SECRET_KEY,
        DATABASE_URL: t.db.url,
        OPS_TOKEN,
      });
      expect(config.OPS_TOKEN).toBeUndefined();
      const started = startService(config, { api: true, worker: false });
      await expect(started).rejects.toBeInstanceOf(ConfigError);
      await expect(started).rejects.toThrow(/OPS_TOKEN: required when NODE_ENV=production/);
    }
    // Outside production the pages may stay open (local development, tests).
    expect(loadConfig({ NODE_ENV: 'development' }).OPS_TOKEN).toBeUndefined();
  });

  it('lists a failed job on the queue page and in the CLI, and retries it', async () => {
    await failedJob('poisoned-1');
    const board = await fetch(`${t.url}/ops/queues/api/queues?activeQueue=commands&status=failed&page=1`, {
      headers: { authorization: basic('ops', 'ops-secret') },
    });
    const queues = (
      (await board.json()) as { queues: Array<{ name: string; jobs: Array<{ id: string; failedReason: string; stacktrace: string[] }> }> }
    ).queues;
    const failed = queues.find((q) => q.name === 'commands')!.jobs.find((j) => j.id === 'poisoned-1')!;
    expect(failed.failedReason).toBeTruthy();
    expect(failed.stacktrace.length).toBeGreaterThan(0);

    const list = await runCli(['jobs', 'list', '--queue', 'commands'], env);
    expect(list.code).toBe(0);
    // It says where it read: the Redis and the prefix (another prefix would show other jobs).
    expect(list.lines[0]).toBe(`failed jobs in ${TEST_REDIS_URL.replace(/\/$/, '')} (REDIS_URL), prefix ${t.prefix}, queues commands`);
    expect(list.lines[1]).toMatch(/QUEUED\s+FINISHED/);
    expect(list.text).toMatch(/poisoned-1\s+order\.accept\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+1\s/);
    expect(list.text).toMatch(/\n\d+ failed job\(s\)$/);

    const show = await runCli(['jobs', 'show', 'poisoned-1'], env);
    expect(show.code).toBe(0);
    expect(JSON.parse(show.text)).toMatchObject({ id: 'poisoned-1', state: 'failed', attempts: 1, data: { commandId: 'poisoned-1' } });

    const retry = await runCli(['jobs', 'retry', 'poisoned-1'], env);
    expect(retry.code).toBe(0);
    expect(retry.text).toContain('retried poisoned-1');
    // It runs again (and, still poisoned, fails again): a second attempt happened.
    for (let i = 0; i < 100 && (await (await queue.getJob('poisoned-1'))!.attemptsMade) < 2; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect((await queue.getJob('poisoned-1'))!.attemptsMade).toBe(2);

    const unknown = await runCli(['jobs', 'retry', 'no-such-job'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^not retried no-such-job: no such job in .*prefix /m);
  });

  it('a refused command is "refused" everywhere: command status, order view, CLI; retrying its job says why not', async () => {
    const call = apiClient(t.url);
    expect((await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd3}/accept`, { reviewer_id: 100 })).status).toBe(200);
    // Accepting it again is refused by the domain: an answer (422), not an infrastructure failure.
    const again = await call(
      SELLER,
      'POST',
      `/v9/orders/${ORDERS.tbd3}/accept`,
      { reviewer_id: 100 },
      { 'Idempotency-Key': 'refused-once' },
    );
    expect(again.status).toBe(422);
    const id = again.headers.get('x-command-id')!;

    const status = (await call(SELLER, 'GET', `/v9/commands/${id}`)).body;
    expect(status).toMatchObject({ status: 'refused', response: { status: 422 } });

    const view = await (
      await fetch(`${t.url}/ops/orders/${ORDERS.tbd3}`, { headers: { authorization: basic('ops', 'ops-secret') } })
    ).text();
    expect(view).toContain('refused 422');
    expect(view).not.toContain('every attempt hit an infrastructure error');

    const show = await runCli(['jobs', 'show', id], env);
    expect(JSON.parse(show.stdout)).toMatchObject({ state: 'completed', outcome: 'refused', answer: 422 });
    const list = await runCli(['jobs', 'list', '--queue', 'commands', '--state', 'completed'], env);
    expect(list.stdout).toMatch(new RegExp(`${id}.*refused 422`));

    const retry = await runCli(['jobs', 'retry', id], env);
    expect(retry.code).toBe(1);
    expect(retry.stderr).toBe(
      `not retried ${id}: it is completed (refused 422), and only failed jobs are retried (a replay of its command answers its stored result)\n`,
    );
    expect(retry.stdout).toBe('0 job(s) back in the queue\n');
  });

  it('prints a shipment history across its replacements from any of its ids', async () => {
    const call = apiClient(t.url);
    const tbd = (await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd2}/accept`, { reviewer_id: 100 })).body.shipments[0].id;
    const live = (await call(SELLER, 'PUT', `/v9/shipments/${tbd}`, { mobile_transfer_type: 'XMobile' })).body.id;
    await call(SELLER, 'PUT', `/v9/shipments/${live}/complete`);
    const history = await runCli(['shipments', 'history', String(tbd), '--json'], env);
    expect(history.code).toBe(0);
    const events = history.lines.map((l) => JSON.parse(l));
    expect(events.map((e) => [e.seq, e.kind, e.to_type, e.to_state])).toEqual([
      [1, 'created', 'TBD', 'pending'],
      [2, 'updated', 'XMobile', 'pending'],
      [3, 'completed', 'XMobile', 'delivered'],
    ]);
    const table = await runCli(['shipments', 'history', String(live)], env);
    expect(table.code).toBe(0);
    expect(table.lines).toHaveLength(4);
    expect(table.lines[2]).toContain(`${tbd}→${live}`);
    expect((await runCli(['shipments', 'history', '999999'], env)).code).toBe(1);
  });
});
