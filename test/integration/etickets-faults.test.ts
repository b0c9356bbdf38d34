import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import type postgres from 'postgres';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandQueues } from '@fulfil/client/transport';
import { startCluster, type Cluster } from '../../chaos/cluster.ts';
import { PostgresFileStore } from '../../src/files/file-store.ts';
import { pruneFiles } from '../../src/files/prune-files.ts';
import { apiClient, type ApiResponse } from '../support/api.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { b64, makePdf } from '../support/test-files.ts';
import { until } from '../support/webhook-receiver.ts';
import { holdLock as holdLockOn } from '../support/hold-lock.ts';

// E-ticket uploads through faults, on built `fulfil start` processes (one API, one worker) with a
// private Postgres and Redis: a worker SIGKILLed mid-command and with its COMMIT in flight, Redis
// restarted without its data between the API storing the files and a worker taking the job,
// Postgres restarted mid-upload. Each ends in one stored set and one event, or in a clean error
// with nothing referenced (the stored bytes then removed by prune-files); never two of either.

const ORDERS = Array.from({ length: 8 }, (_, i) => 900 + i);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('e-tickets through worker, Redis and Postgres faults', () => {
  let c: Cluster;
  let call: ReturnType<typeof apiClient>;
  let next = 0;
  beforeAll(async () => {
    // COMMAND_WAIT_MS short: a caller whose command is held up is told 202 soon, and retries.
    c = await startCluster({ workers: 1, env: { COMMAND_WAIT_MS: '2000', RECOVERY_AFTER_MS: '1000', RECOVERY_EVERY_MS: '500' } });
    await c.seed(baseFixture(ORDERS));
    call = apiClient(c.apiUrl);
  }, 120_000);
  afterAll(async () => {
    await c?.stop();
  }, 120_000);

  const sql = () => c.db.sql!;

  /** A pending Eticket shipment of the next order (quantity 2). */
  async function eticketShipment(): Promise<number> {
    // A test that failed after killing the worker leaves none: the next test starts with one.
    if (c.workers.length === 0) await c.addWorker();
    const orderId = ORDERS[next++]!;
    const accepted = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'Eticket' });
    expect(updated.status).toBe(200);
    return updated.body.id;
  }

  /**
   * What one shipment holds: its sets, its upload events, and how many times those were handed to
   * the relay: its feed row, waiting for a position or placed. One per event, whether the relay
   * has taken it yet or not; never two.
   */
  async function held(shipmentId: number) {
    const [row] = await sql()`with ev as (select id from shipment_events where shipment_id = ${shipmentId} and kind = 'etickets_uploaded')
      select
      (select count(*) from shipment_file_sets where shipment_id = ${shipmentId} and kind = 'etickets')::int as sets,
      (select count(*) from ev)::int as events,
      (select count(*) from event_feed where seller_brokerage_id = 1 and event_row_id in (select id from ev))::int as outbox`;
    return row as unknown as { sets: number; events: number; outbox: number };
  }

  /** Whether a stored file exists, and how many set files reference it. */
  async function file(sha256: string) {
    const [row] = await sql()`select
      exists (select 1 from stored_files where sha256 = ${sha256}) as stored,
      (select count(*) from shipment_files where sha256 = ${sha256})::int as referenced`;
    return row as unknown as { stored: boolean; referenced: number };
  }

  /** The caller retrying with its Idempotency-Key (through 202s and 503s) until the command's answer. */
  async function retryUntilAnswered(shipmentId: number, body: object, key: string, timeoutMs = 120_000): Promise<ApiResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await call(SELLER, 'POST', `/v9/shipments/${shipmentId}/etickets`, body, { 'Idempotency-Key': key }).catch(
        () => undefined,
      );
      if (res && res.status !== 202 && res.status !== 503) return res;
      if (Date.now() > deadline) throw new Error(`no answer within ${timeoutMs} ms: last ${res?.status} ${JSON.stringify(res?.body)}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }

  const holdLock = (statement: string, params: postgres.ParameterOrJSON<never>[] = []) => holdLockOn(c.pg.url, statement, params);

  /** Resolves once a backend other than the test's waits on a lock, its statement matching `query`. */
  const waitingOn = (query: RegExp) =>
    until(
      `a backend waiting on a lock (${query})`,
      async () => {
        const rows = await sql()`select query from pg_stat_activity where wait_event_type = 'Lock' and pid <> pg_backend_pid()`;
        return rows.some((r) => query.test(String(r.query)));
      },
      30_000,
    );

  it('a worker SIGKILLed while the command waits on the order: one set, one event, the same answer on replay', async () => {
    const id = await eticketShipment();
    const pdf = await makePdf(2, 'killed-mid-command');
    const body = { etickets: [{ eticket: b64(pdf), seat: '1' }] };
    const orderLock = await holdLock('select id from orders where id = (select order_id from shipments where id = $1) for update', [id]);
    const first = call(SELLER, 'POST', `/v9/shipments/${id}/etickets`, body, { 'Idempotency-Key': `kill-${id}` });
    await waitingOn(/orders/i);
    await c.kill(c.workers[0]!);
    await orderLock.release();
    expect((await first).status).toBe(202);
    expect(await held(id)).toEqual({ sets: 0, events: 0, outbox: 0 });
    expect(await file(sha(pdf))).toEqual({ stored: true, referenced: 0 });

    await c.addWorker();
    const answer = await retryUntilAnswered(id, body, `kill-${id}`);
    expect(answer.status).toBe(200);
    expect(answer.body.etickets).toEqual([expect.objectContaining({ seat: '1', pages: 2, sha256: sha(pdf) })]);
    const replay = await retryUntilAnswered(id, body, `kill-${id}`);
    expect(replay.body).toEqual(answer.body);
    expect(await held(id)).toEqual({ sets: 1, events: 1, outbox: 1 });
    expect(await file(sha(pdf))).toEqual({ stored: true, referenced: 1 });
  }, 240_000);

  it('a worker SIGKILLed with its last statement and COMMIT in flight: one set, one event, the same answer on replay', async () => {
    const id = await eticketShipment();
    const pdf = await makePdf(2, 'killed-at-commit');
    const body = { etickets: [{ eticket: b64(pdf) }] };
    // Every statement before the set's insert has run; the insert, sent with COMMIT, waits.
    const tableLock = await holdLock('lock table shipment_file_sets in share mode');
    const first = call(SELLER, 'POST', `/v9/shipments/${id}/etickets`, body, { 'Idempotency-Key': `commit-${id}` });
    await waitingOn(/insert into shipment_file_sets/i);
    await c.kill(c.workers[0]!);
    await tableLock.release();
    // 202, or 200 where the COMMIT landed and the API read the answer from Postgres in time.
    const told = await first;
    expect([200, 202]).toContain(told.status);

    // Whether Postgres committed what the dead worker had sent or not, a new worker ends it once.
    await c.addWorker();
    const answer = await retryUntilAnswered(id, body, `commit-${id}`);
    expect(answer.status).toBe(200);
    expect(answer.body.etickets).toEqual([expect.objectContaining({ sha256: sha(pdf), pages: 2 })]);
    const replay = await retryUntilAnswered(id, body, `commit-${id}`);
    expect(replay.body).toEqual(answer.body);
    if (told.status === 200) expect(told.body).toEqual(answer.body);
    const commandId = answer.headers.get('x-command-id')!;
    const [cmd] = await sql()`select status, result_status from commands where id = ${commandId}`;
    expect(cmd).toEqual({ status: 'succeeded', result_status: 200 });
    // The dead worker's job is redelivered (BullMQ's stalled check) and runs again on the new
    // worker; it must find the command done rather than attach a second set.
    const redis = new Redis(c.redis.url, { maxRetriesPerRequest: null });
    const queues = new CommandQueues({ prefix: 'chaos', connection: redis });
    try {
      await until(
        'the redelivered job to finish',
        async () => {
          for (const q of queues.queues()) if ((await (await q.getJob(commandId))?.getState()) === 'completed') return true;
          return false;
        },
        120_000,
      );
    } finally {
      await queues.close();
      redis.disconnect();
    }
    expect(await held(id)).toEqual({ sets: 1, events: 1, outbox: 1 });
    expect(await file(sha(pdf))).toEqual({ stored: true, referenced: 1 });
  }, 240_000);

  it('Redis restarted without its data between the stored files and a worker taking the job: the command still runs once', async () => {
    const id = await eticketShipment();
    const pdf = await makePdf(2, 'redis-lost');
    // No worker: the job waits in Redis, which then loses it.
    await c.kill(c.workers[0]!);
    const queued = await call(
      SELLER,
      'POST',
      `/v9/shipments/${id}/etickets`,
      { etickets: [{ eticket: b64(pdf) }] },
      { prefer: 'respond-async' },
    );
    expect(queued.status).toBe(202);
    expect(await file(sha(pdf))).toEqual({ stored: true, referenced: 0 });

    await c.redis.kill();
    rmSync(path.join(c.dir, 'redis', 'appendonlydir'), { recursive: true, force: true });
    await c.redis.start();
    await c.addWorker();

    await until(
      'the lost command to be recovered and run',
      async () => (await sql()`select status from commands where id = ${queued.body.id}`)[0]?.status === 'succeeded',
      90_000,
    );
    const status = await call(SELLER, 'GET', queued.headers.get('location')!);
    expect(status.body).toMatchObject({ status: 'succeeded', response: { status: 200, body: { id, etickets: [{ sha256: sha(pdf) }] } } });
    expect(await held(id)).toEqual({ sets: 1, events: 1, outbox: 1 });
    // Referenced, so housekeeping keeps it even with no grace at all.
    await pruneFiles(c.db, new PostgresFileStore(c.db), { graceHours: 0, retentionDays: 90 });
    expect(await file(sha(pdf))).toEqual({ stored: true, referenced: 1 });
  }, 240_000);

  it('Postgres restarted mid-upload: a clean 503 with nothing referenced (prune-files removes the bytes), then success once', async () => {
    const id = await eticketShipment();
    const pdf = await makePdf(2, 'postgres-restart');
    const body = { etickets: [{ eticket: b64(pdf) }] };
    // The files are stored; the command's row waits on the lock; then Postgres goes down.
    const commandsLock = await holdLock('lock table commands in share mode');
    const first = call(SELLER, 'POST', `/v9/shipments/${id}/etickets`, body, { 'Idempotency-Key': `pg-${id}` });
    await waitingOn(/insert into "?commands"?/i);
    expect(await file(sha(pdf))).toEqual({ stored: true, referenced: 0 });
    c.pg.stop('immediate');
    const refused = await first;
    await commandsLock.release();
    c.pg.start();
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ errors: [expect.objectContaining({ code: 'unavailable', message: expect.any(String) })] });
    await until('the API to see Postgres again', async () => (await fetch(`${c.apiUrl}/readyz`)).ok, 60_000);
    expect(await held(id)).toEqual({ sets: 0, events: 0, outbox: 0 });
    const [commands] = await sql()`select count(*)::int as n from commands where idempotency_key = ${`pg-${id}`}`;
    expect(commands!.n).toBe(0);

    // Nothing references the bytes: housekeeping removes them once the grace is over (none here).
    expect(await file(sha(pdf))).toEqual({ stored: true, referenced: 0 });
    // The service's own housekeeping may take the row first (skip locked): what counts is that it goes.
    await until(
      'the unreferenced bytes pruned',
      async () => {
        await pruneFiles(c.db, new PostgresFileStore(c.db), { graceHours: 0, retentionDays: 90 });
        return !(await file(sha(pdf))).stored;
      },
      30_000,
    );
    expect(await file(sha(pdf))).toEqual({ stored: false, referenced: 0 });

    // The caller's retry stores the bytes again and attaches them, once.
    const answer = await retryUntilAnswered(id, body, `pg-${id}`);
    expect(answer.status).toBe(200);
    expect((await retryUntilAnswered(id, body, `pg-${id}`)).body).toEqual(answer.body);
    expect(await held(id)).toEqual({ sets: 1, events: 1, outbox: 1 });
    expect(await file(sha(pdf))).toEqual({ stored: true, referenced: 1 });
  }, 240_000);

  it('Postgres restarted while the worker writes the set: the command retries and attaches once', async () => {
    const id = await eticketShipment();
    const pdf = await makePdf(2, 'postgres-restart-worker');
    const body = { etickets: [{ eticket: b64(pdf) }] };
    const tableLock = await holdLock('lock table shipment_file_sets in share mode');
    const first = call(SELLER, 'POST', `/v9/shipments/${id}/etickets`, body, { 'Idempotency-Key': `pgw-${id}` });
    await waitingOn(/insert into shipment_file_sets/i);
    c.pg.stop('fast');
    await tableLock.release();
    await first.catch(() => undefined);
    c.pg.start();
    const answer = await retryUntilAnswered(id, body, `pgw-${id}`);
    expect(answer.status).toBe(200);
    expect(answer.body.etickets).toEqual([expect.objectContaining({ sha256: sha(pdf) })]);
    expect(await held(id)).toEqual({ sets: 1, events: 1, outbox: 1 });
    expect(await file(sha(pdf))).toEqual({ stored: true, referenced: 1 });
    expect(c.crashes()).toEqual([]);
  }, 240_000);
});
