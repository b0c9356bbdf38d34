import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import type { NewCommand } from '../../src/db/sql/insert-command.ts';
import { CommandRows } from '../../src/queues/command-rows.ts';
import { baseFixture } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** The seller's brokerage in baseFixture. */
const BROKERAGE = 1;

describe('command rows of the requests of one event-loop turn', () => {
  let t: TestService;
  let db: Database;
  const statements: string[] = [];
  const inserts = () => statements.filter((s) => /insert into commands/i.test(s));

  beforeAll(async () => {
    t = await startTestService({ roles: { api: true, worker: false } });
    await t.seed(baseFixture());
    db = await openDatabase({ databaseUrl: t.db.url, maxConnections: 4, onStatement: (s) => statements.push(s) });
  });
  afterAll(async () => {
    await db?.close();
    await t?.stop();
  });

  const row = (id: string, payload = '{"order_id":700}'): NewCommand => ({
    id,
    name: 'order.accept',
    brokerageId: BROKERAGE,
    idempotencyKey: null,
    requestHash: 'h',
    payload,
    actor: '{"brokerageId":1}',
  });
  const stored = async (ids: string[]) =>
    (await db.rows<{ id: string }>('select id from commands where id = any($1::text[]) order by id', [ids])).map((r) => r.id);

  it('are recorded by one statement, each told whether its row is new; an id twice is new once', async () => {
    const rows = new CommandRows(db);
    await rows.insert(row('c-rows-taken'));
    statements.length = 0;
    const ids = ['c-rows-1', 'c-rows-2', 'c-rows-3', 'c-rows-4'];
    const answers = await Promise.all([...ids, 'c-rows-taken', 'c-rows-2'].map((id) => rows.insert(row(id))));
    expect(answers).toEqual([true, true, true, true, false, false]);
    expect(await stored([...ids, 'c-rows-taken'])).toEqual([...ids, 'c-rows-taken'].sort());
    // One statement for the turn's distinct ids; the repeated id's own insert comes behind it.
    expect(inserts()).toHaveLength(2);
  });

  it('a row Postgres refuses fails alone: the others are recorded one by one', async () => {
    const rows = new CommandRows(db);
    statements.length = 0;
    // jsonb cannot hold \u0000: this request's value is refused, as it would be alone.
    const settled = await Promise.allSettled([
      rows.insert(row('c-bad-1')),
      rows.insert(row('c-bad-2', '{"note":"\\u0000"}')),
      rows.insert(row('c-bad-3')),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toMatchObject({ code: '22P05' });
    expect(await stored(['c-bad-1', 'c-bad-2', 'c-bad-3'])).toEqual(['c-bad-1', 'c-bad-3']);
    // The turn's statement, then each row alone.
    expect(inserts()).toHaveLength(4);
  });

  it('a turn with one request sends the one-row statement it always did', async () => {
    const rows = new CommandRows(db);
    statements.length = 0;
    expect(await rows.insert(row('c-alone'))).toBe(true);
    expect(inserts()).toHaveLength(1);
    expect(inserts()[0]).not.toMatch(/unnest/);
  });
});
