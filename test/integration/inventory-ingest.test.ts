import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { RedisConnection } from '@fulfil/client/transport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { CommandDispatcher } from '../../src/queues/dispatcher.ts';
import { CommandQueues, CommandWaiters, blockingConnection, producerConnection } from '@fulfil/client/transport';
import { type Envelope, type JobMap, type JobName } from '@fulfil/contract';
import { inventoryPlace, requestFingerprint } from '@fulfil/contract';
import { TEST_REDIS_URL } from '../support/env.ts';
import { SELLER, baseFixture } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/fulfil.mjs');

const seat = (s: string) => ({ barcode: `B${s}`, primary_ticket_id: null, seat: s, verification_id: null });
const record = (remote_id: number, extra: Record<string, unknown> = {}) => ({ remote_id, quantity: 2, price: '10', ...extra });

type Detailed = { id: number; remote_id: number; price: string; seats: Array<{ seat: string }>; [k: string]: unknown };

describe('inventory ingest through the queue and the workers', () => {
  let t: TestService;
  let dispatcher: CommandDispatcher;
  let queues: CommandQueues;
  let waiters: CommandWaiters;
  const connections: RedisConnection[] = [];
  let dir: string;

  const send = async <N extends JobName>(name: N, payload: unknown, brokerageId = 1, idempotencyKey?: string) => {
    const outcome = await dispatcher.dispatch({
      name,
      actor: { brokerageId, userId: null, via: 'upstream' },
      payload: payload as JobMap[N],
      requestHash: requestFingerprint(name, payload),
      idempotencyKey,
    });
    expect(outcome.kind).toBe('done');
    return (outcome as { result: { status: number; body: any } }).result;
  };
  const listing = async (office: number, query = '') => {
    const res = await signedFetch(t.url, SELLER, 'GET', `/v9/inventory?office_id=${office}${query}`);
    expect(res.status).toBe(200);
    return res.json() as Promise<any>;
  };
  const detailed = async (office: number) =>
    ((await listing(office, '&response=detailed&page[cursor]=1')) as { inventory: Detailed[] }).inventory;
  const seatCount = async () => Number((await t.db.database.sql!`select count(*)::int as n from seats`)[0]!.n);

  beforeAll(async () => {
    t = await startTestService();
    await t.seed(baseFixture());
    const track = (c: RedisConnection) => (connections.push(c), c);
    queues = new CommandQueues({ prefix: t.prefix, connection: track(producerConnection(TEST_REDIS_URL, { enableOfflineQueue: true })) });
    waiters = new CommandWaiters([inventoryPlace(t.prefix)], { connection: () => track(blockingConnection(TEST_REDIS_URL)) });
    await waiters.ready();
    dispatcher = new CommandDispatcher({ database: t.db.database, queues, waiters, waitMs: 20_000, log: createLogger('silent') });
    dir = mkdtempSync(path.join(tmpdir(), 'fulfil-inv-'));
  });
  afterAll(async () => {
    await waiters?.close();
    await queues?.close();
    connections.forEach((c) => c.disconnect());
    await t?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('inventory.upsert', () => {
    it("writes a batch and replaces a group's seats as a whole on the next upsert", async () => {
      const first = await send('inventory.upsert', {
        officeId: 11,
        records: [
          record(1, { id: 700001, event_id: 5000, seats: [seat('1'), seat('2'), seat('3')] }),
          record(2, { id: 700002, event_id: 5000, seats: [seat('9')] }),
          record(3),
        ],
      });
      expect(first).toEqual({ status: 200, body: { upserted: 3 } });
      expect(await listing(11)).toEqual([
        { id: 700001, remote_id: 1, event_id: 5000 },
        { id: 700002, remote_id: 2, event_id: 5000 },
        { id: null, remote_id: 3, event_id: null },
      ]);

      const second = await send('inventory.upsert', {
        officeId: 11,
        records: [record(1, { id: 700001, event_id: 5000, price: '12.5', seats: [seat('7')] })],
      });
      expect(second).toEqual({ status: 200, body: { upserted: 1 } });
      const [one, two] = await detailed(11);
      expect(one).toMatchObject({
        remote_id: 1,
        price: '12.50',
        seats: [{ barcode: 'B7', primary_ticket_id: null, seat: '7', verification_id: null }],
      });
      expect(two!.seats.map((s) => s.seat)).toEqual(['9']);
      expect(await seatCount()).toBe(2);
    });

    it('rejects the whole batch for one bad record, naming its index and field, and writes nothing', async () => {
      const before = await listing(11);
      const result = await send('inventory.upsert', {
        officeId: 11,
        records: [record(50), record(1, { id: 700001, event_id: 5000, price: '99' }), record(51, { cost: '1.234' })],
      });
      expect(result.status).toBe(400);
      expect(result.body).toEqual({
        errors: [{ code: 'invalid_params', message: 'records.2.cost: must be a decimal with at most two places', field: 'records.2.cost' }],
      });
      expect(await listing(11)).toEqual(before);
      expect((await detailed(11))[0]!.price).toBe('12.50');
    });

    it('rejects a service id held by another ticket group, anywhere, and writes nothing of the batch', async () => {
      await t.db.database.sql!`insert into ticket_groups (office_id, remote_id, id, event_id) values (20, 1, 800001, 5000)`;
      const result = await send('inventory.upsert', {
        officeId: 11,
        records: [record(60), record(2, { id: 700002, event_id: 5000, seats: [] }), record(61, { id: 800001, event_id: 5000 })],
      });
      expect(result).toEqual({
        status: 400,
        body: {
          errors: [
            {
              code: 'invalid_params',
              message: 'records.2.id: service id 800001 is already used by another ticket group',
              field: 'records.2.id',
            },
          ],
        },
      });
      expect((await listing(11)).map((r: { remote_id: number }) => r.remote_id)).toEqual([1, 2, 3]);
      expect(await seatCount()).toBe(2);
    });

    it('rejects repeated remote_ids within a batch', async () => {
      const result = await send('inventory.upsert', { officeId: 11, records: [record(70), record(71), record(70)] });
      expect(result.status).toBe(400);
      expect(result.body.errors[0]).toMatchObject({
        field: 'records.2.remote_id',
        message: 'records.2.remote_id: remote_id 70 also appears at index 0 of this batch',
      });
    });

    it('refuses an office of another brokerage with 401 and writes nothing', async () => {
      const result = await send('inventory.upsert', { officeId: 11, records: [record(90)] }, 2);
      expect(result).toEqual({
        status: 401,
        body: { errors: [{ code: 'unauthorized', message: 'office_id is not an office of your brokerage' }] },
      });
      expect((await listing(11)).some((r: { remote_id: number }) => r.remote_id === 90)).toBe(false);
    });
  });

  describe('inventory.map and inventory.remove', () => {
    it('maps and unmaps by remote_id', async () => {
      expect(
        await send('inventory.map', {
          officeId: 11,
          mappings: [
            { remote_id: 3, id: 700003, event_id: 5000 },
            { remote_id: 2, id: null, event_id: null },
          ],
        }),
      ).toEqual({ status: 200, body: { mapped: 1, unmapped: 1 } });
      expect(await listing(11, '&state=MAPPED')).toEqual([
        { id: 700001, remote_id: 1, event_id: 5000 },
        { id: 700003, remote_id: 3, event_id: 5000 },
      ]);
      expect(await listing(11, '&state=UNMAPPED')).toEqual([{ id: null, remote_id: 2, event_id: null }]);
    });

    it('refuses half a mapping, an unknown remote_id and a service id in use, writing nothing', async () => {
      const half = await send('inventory.map', { officeId: 11, mappings: [{ remote_id: 2, id: 700009, event_id: null }] });
      expect(half.body.errors[0]).toMatchObject({ field: 'mappings.0.event_id' });
      const unknown = await send('inventory.map', {
        officeId: 11,
        mappings: [
          { remote_id: 2, id: 700002, event_id: 5000 },
          { remote_id: 999, id: null, event_id: null },
        ],
      });
      expect(unknown.body).toEqual({
        errors: [
          {
            code: 'invalid_params',
            message: 'mappings.1.remote_id: office 11 has no ticket group with remote_id 999',
            field: 'mappings.1.remote_id',
          },
        ],
      });
      const taken = await send('inventory.map', { officeId: 11, mappings: [{ remote_id: 2, id: 700001, event_id: 5000 }] });
      expect(taken.body.errors[0]).toMatchObject({ field: 'mappings.0.id' });
      expect(await listing(11, '&state=UNMAPPED')).toEqual([{ id: null, remote_id: 2, event_id: null }]);
    });

    it('removes ticket groups with their seats; unknown remote_ids are not counted', async () => {
      expect(await seatCount()).toBe(2);
      expect(await send('inventory.remove', { officeId: 11, remoteIds: [1, 2, 12345] })).toEqual({ status: 200, body: { removed: 2 } });
      expect(await listing(11)).toEqual([{ id: 700003, remote_id: 3, event_id: 5000 }]);
      expect(await seatCount()).toBe(0);
      const foreign = await send('inventory.remove', { officeId: 11, remoteIds: [3] }, 3);
      expect(foreign.status).toBe(401);
      expect(await listing(11)).toHaveLength(1);
    });
  });

  it('a command id delivered twice changes nothing the second time', async () => {
    const envelope: Envelope<JobMap['inventory.upsert']> = {
      commandId: 'twice-1',
      actor: { brokerageId: 1, userId: null, via: 'upstream' },
      requestHash: 'h-twice-1',
      payload: { officeId: 10, records: [record(5, { price: '10' })] } as never,
    };
    const deliver = async () => {
      const wake = waiters.wait(envelope.commandId, 20_000);
      await queues.enqueue('inventory.upsert', envelope);
      expect(await wake.done).toMatchObject({ event: 'completed' });
    };
    await deliver();
    expect(await send('inventory.upsert', { officeId: 10, records: [record(5, { price: '20' })] })).toEqual({
      status: 200,
      body: { upserted: 1 },
    });
    // Redis forgets the first job; the same command arrives again, as after a producer retry.
    await queues.queueAt(inventoryPlace(t.prefix)).remove(envelope.commandId);
    await deliver();
    const rows = await t.db.database.sql!`select price::text as price from ticket_groups where office_id = 10 and remote_id = 5`;
    expect(rows).toEqual([{ price: '20.00' }]);
    const [cmd] = await t.db.database.sql!`select status, result_body, attempts from commands where id = 'twice-1'`;
    expect(cmd).toEqual({ status: 'succeeded', result_body: { upserted: 1 }, attempts: 1 });
  });

  describe('fulfil inventory import / export', () => {
    const cli = async (args: string[]) => {
      try {
        const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
          env: {
            ...process.env,
            DATABASE_URL: t.db.url,
            REDIS_URL: TEST_REDIS_URL,
            QUEUE_PREFIX: t.prefix,
            DATA_DIR: dir,
            LOG_LEVEL: 'silent',
          },
        });
        return { code: 0, stdout, stderr };
      } catch (err) {
        const e = err as { code: number; stdout: string; stderr: string };
        return { code: e.code, stdout: e.stdout, stderr: e.stderr };
      }
    };
    const lines = (...records: unknown[]) => records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';

    it('reports a bad line by number and field and sends nothing', async () => {
      const file = path.join(dir, 'bad.jsonl');
      writeFileSync(
        file,
        lines(
          record(201),
          '',
          record(202, { quantity: -1 }),
          record(203),
          '{"remote_id": 204,',
          record(205, { seats: [seat('nul\u0000')] }),
        ),
      );
      const res = await cli(['inventory', 'import', '11', file]);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`${file}:3: quantity: must be at least 0`);
      expect(res.stderr).toContain(`${file}:5: not valid JSON`);
      expect(res.stderr).toContain(`${file}:6: seats.0.barcode: must not contain NUL or unpaired surrogate characters`);
      expect(res.stderr).toContain('3 bad lines');
      expect(res.stderr).toContain('nothing was sent');
      expect((await listing(11)).map((r: { remote_id: number }) => r.remote_id)).toEqual([3]);
    });

    it('imports in batches with progress lines, and a detailed export imports again unchanged', async () => {
      const file = path.join(dir, 'good.jsonl');
      writeFileSync(
        file,
        lines(
          record(301, { id: 710301, event_id: 5000, seats: [seat('1'), seat('2')], in_hand_on: '2027-01-02' }),
          record(302),
          record(303, { id: 710303, event_id: 5000 }),
          record(304),
          record(302, { price: '15' }),
        ),
      );
      const res = await cli(['inventory', 'import', '20', file, '--batch', '2']);
      expect(res.stderr).toContain('batch 1 (lines 1–2) upserted: 2/5 records');
      expect(res).toMatchObject({ code: 0, stdout: 'imported 5 records into office 20 in 3 batches\n' });
      const [row] = await t.db.database.sql!`select price::text as price from ticket_groups where office_id = 20 and remote_id = 302`;
      expect(row!.price).toBe('15.00');

      const out = path.join(dir, 'export.jsonl');
      const exported = await cli(['inventory', 'export', '20', '--detailed', '--out', out]);
      expect(exported).toMatchObject({ code: 0, stderr: `exported 3 records of office 20 to ${out}\n` });
      const before = readFileSync(out, 'utf8');
      // Detailed order is by service id: 710301, 710303, then 800001 (remote_id 1, inserted earlier).
      expect(
        before
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).remote_id),
      ).toEqual([301, 303, 1]);

      const again = await cli(['inventory', 'import', '20', out]);
      expect(again).toMatchObject({ code: 0, stdout: 'imported 3 records into office 20 in 1 batch\n' });
      const after = (await cli(['inventory', 'export', '20', '--detailed', '--out', out]), readFileSync(out, 'utf8'));
      const withoutUpdatedAt = (s: string) => s.replace(/"updated_at":"[^"]+"/g, '');
      expect(withoutUpdatedAt(after)).toBe(withoutUpdatedAt(before));

      const all = await cli(['inventory', 'export', '20', '--state', 'UNMAPPED']);
      expect(all.stdout).toBe('{"id":null,"remote_id":302,"event_id":null}\n{"id":null,"remote_id":304,"event_id":null}\n');
    });

    it('tells the file line of a record the worker refused, and keeps earlier batches', async () => {
      const file = path.join(dir, 'conflict.jsonl');
      writeFileSync(file, lines(record(401), record(402), record(403, { id: 700003, event_id: 5000 })));
      const res = await cli(['inventory', 'import', '20', file, '--batch', '2']);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`${file}:3: id: service id 700003 is already used by another ticket group`);
      expect(res.stderr).toContain('batch 2 (lines 3–3) was refused with 400');
      const remoteIds = (
        await t.db.database.sql!`select remote_id from ticket_groups where office_id = 20 and remote_id > 400 order by 1`
      ).map((r) => r.remote_id);
      expect(remoteIds).toEqual([401, 402]);
    });
  });
});
