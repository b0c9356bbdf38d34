/**
 * The worker's claim (src/db/sql/claim-command.ts) writes nothing: it takes the command's lock and
 * reads its row. A row a producer wrote is answered in place; a command with none (a synchronous
 * call, an upstream job) gets its one row from the statement that stores the answer. Two
 * deliveries of the same command at once: the second waits for the first and then answers what
 * it stored, whichever way it lost the race. The attempt is counted with the answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimCommand, type CommandClaim } from '../../src/db/sql/claim-command.ts';
import { storeResult } from '../../src/db/sql/store-result.ts';
import { markExhausted } from '../../workers/mark-exhausted.ts';
import type { TestDatabase } from '../support/database.ts';
import { createSeededTestDatabase } from '../support/seeded-database.ts';
import { baseFixture } from '../support/fixtures.ts';

const claimOf = (commandId: string, over: Partial<CommandClaim> = {}): CommandClaim => ({
  commandId,
  name: 'order.accept',
  brokerageId: 1,
  requestHash: 'h1',
  payload: JSON.stringify({ order_id: 700, reviewer_id: 100 }),
  actor: JSON.stringify({ brokerageId: 1, userId: 100 }),
  ...over,
});

function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

describe('claiming a command', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createSeededTestDatabase(baseFixture());
  });
  afterAll(async () => {
    await db?.drop();
  });

  const row = async (id: string) =>
    (await db.database.sql!`select status, attempts, result_status, xmin::text as xmin from commands where id = ${id}`)[0];

  it('a producer-written row is not rewritten by the claim; the answer counts the attempt', async () => {
    await db.database.sql!`insert into commands (id, name, brokerage_id, request_hash, payload, actor)
      values ('c-producer', 'order.accept', 1, 'h1', '{}', '{}')`;
    const before = await row('c-producer');
    // A claim that is rolled back (a refusal, a crash) leaves the row as it was: same version.
    await db.database
      .transaction(async (tx) => {
        expect(await claimCommand(tx, claimOf('c-producer'))).toEqual({ kind: 'claimed' });
        throw new Error('roll back');
      })
      .catch(() => {});
    expect(await row('c-producer')).toEqual(before);
    await db.database.transaction(async (tx) => {
      expect(await claimCommand(tx, claimOf('c-producer'))).toEqual({ kind: 'claimed' });
      await storeResult(tx, 'c-producer', 200, { ok: true });
    });
    expect(await row('c-producer')).toMatchObject({ status: 'succeeded', attempts: 1, result_status: 200 });
    await db.database.transaction(async (tx) => {
      expect(await claimCommand(tx, claimOf('c-producer'))).toEqual({ kind: 'finished', status: 200, body: { ok: true } });
    });
  });

  it('another command under a used id is a conflict; an unknown brokerage is said so', async () => {
    await db.database.transaction(async (tx) => {
      expect(await claimCommand(tx, claimOf('c-producer', { requestHash: 'other' }))).toEqual({ kind: 'conflict' });
      expect(await claimCommand(tx, claimOf('c-nobody', { brokerageId: 99_999 }))).toEqual({ kind: 'unknown-brokerage' });
    });
    expect(await row('c-nobody')).toBeUndefined();
  });

  it('two deliveries of an upstream job at once: the second waits, then answers what the first stored', async () => {
    const claimed = gate();
    const finish = gate();
    const first = db.database.transaction(async (tx) => {
      const outcome = await claimCommand(tx, claimOf('c-upstream'));
      claimed.open();
      await finish.wait;
      await storeResult(tx, 'c-upstream', 200, { first: true });
      return outcome;
    });
    await claimed.wait;
    // The second starts while the first holds the command's lock: it waits, then reads the first's row.
    const second = db.database.transaction((tx) => claimCommand(tx, claimOf('c-upstream')));
    await new Promise((r) => setTimeout(r, 200));
    finish.open();
    expect(await first).toEqual({ kind: 'claimed' });
    expect(await second).toEqual({ kind: 'finished', status: 200, body: { first: true } });
    expect(await row('c-upstream')).toMatchObject({ status: 'succeeded', attempts: 1, result_status: 200 });
  });

  it('the same race, the first rolled back: the second claims the command', async () => {
    const claimed = gate();
    const finish = gate();
    const first = db.database
      .transaction(async (tx) => {
        await claimCommand(tx, claimOf('c-upstream-2'));
        claimed.open();
        await finish.wait;
        throw new Error('crashed');
      })
      .catch((err: Error) => err.message);
    await claimed.wait;
    const second = db.database.transaction(async (tx) => {
      const outcome = await claimCommand(tx, claimOf('c-upstream-2'));
      await storeResult(tx, 'c-upstream-2', 201, { second: true });
      return outcome;
    });
    await new Promise((r) => setTimeout(r, 200));
    finish.open();
    expect(await first).toBe('crashed');
    expect(await second).toEqual({ kind: 'claimed' });
    expect(await row('c-upstream-2')).toMatchObject({ status: 'succeeded', attempts: 1, result_status: 201 });
  });

  it('a command with no row gets one row, written once with its answer, from the claim', async () => {
    const claim = claimOf('c-sync', { payload: JSON.stringify({ order_id: 701 }), actor: JSON.stringify({ brokerageId: 1, userId: 7 }) });
    await db.database.transaction(async (tx) => {
      expect(await claimCommand(tx, claim)).toEqual({ kind: 'claimed' });
      // The claim wrote nothing: the row comes with the answer.
      expect(await tx.rows('select 1 from commands where id = $1', ['c-sync'])).toEqual([]);
      await storeResult(tx, 'c-sync', 200, { done: 1 });
    });
    const [stored] = await db.database.sql!`select name, brokerage_id::int as b, request_hash, payload, actor, status, attempts,
      result_status, result_body, finished_at is not null as finished, xmax::text as xmax from commands where id = 'c-sync'`;
    expect(stored).toEqual({
      name: 'order.accept',
      b: 1,
      request_hash: 'h1',
      payload: { order_id: 701 },
      actor: { brokerageId: 1, userId: 7 },
      status: 'succeeded',
      attempts: 1,
      result_status: 200,
      result_body: { done: 1 },
      finished: true,
      // Never updated or locked: the version the answer inserted.
      xmax: '0',
    });
  });

  it('a receipt written while a delivery runs: the answer goes into it, once', async () => {
    const claimed = gate();
    const finish = gate();
    const first = db.database.transaction(async (tx) => {
      expect(await claimCommand(tx, claimOf('c-receipt'))).toEqual({ kind: 'claimed' });
      claimed.open();
      await finish.wait;
      await storeResult(tx, 'c-receipt', 200, { first: true });
    });
    await claimed.wait;
    // What the API writes when its wait runs out before the answer (src/queues/dispatcher.ts).
    await db.database.sql!`insert into commands (id, name, brokerage_id, request_hash, payload, actor)
      values ('c-receipt', 'order.accept', 1, 'h1', '{}', '{}') on conflict do nothing`;
    finish.open();
    await first;
    expect(await row('c-receipt')).toMatchObject({ status: 'succeeded', attempts: 1, result_status: 200 });
    await db.database.transaction(async (tx) => {
      expect(await claimCommand(tx, claimOf('c-receipt'))).toEqual({ kind: 'finished', status: 200, body: { first: true } });
    });
  });

  it('a job that used up its attempts with no row gets a failed one from its claim; an answered command is left alone', async () => {
    await markExhausted(db.database, 'c-exhausted', claimOf('c-exhausted', { payload: JSON.stringify({ order_id: 702 }) }));
    const [failed] = await db.database.sql!`select status, result_status, payload, request_hash from commands where id = 'c-exhausted'`;
    expect(failed).toEqual({ status: 'failed', result_status: null, payload: { order_id: 702 }, request_hash: 'h1' });
    // c-sync was answered above: a late exhaustion report changes nothing.
    await markExhausted(db.database, 'c-sync', claimOf('c-sync'));
    expect(await row('c-sync')).toMatchObject({ status: 'succeeded', result_status: 200 });
  });
});
