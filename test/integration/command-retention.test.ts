import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedPayload } from '../../src/commands/stored-payload.ts';
import { pruneCommands } from '../../workers/command-retention.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

describe('command retention', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
    await t.database.sql!`insert into brokerages values (1, 'b')`;
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('deletes finished commands past the retention, never unfinished or recent ones', async () => {
    const sql = t.database.sql!;
    const row = (id: string, status: string, sentHoursAgo: number, finishedHoursAgo: number | null) =>
      sql`insert into commands (id, name, brokerage_id, request_hash, payload, status, created_at, finished_at)
          values (${id}, 'order.accept', 1, 'h', '{}', ${status}, now() - make_interval(hours => ${sentHoursAgo}),
                  ${finishedHoursAgo === null ? null : sql`now() - make_interval(hours => ${finishedHoursAgo})`})`;
    for (let i = 0; i < 7; i++) await row(`old-done-${i}`, i % 2 ? 'failed' : 'succeeded', 200, 199);
    await row('old-queued', 'queued', 200, null);
    await row('old-running', 'running', 200, null);
    await row('recent-done', 'succeeded', 23, 22);
    // Sent long ago but finished recently (it waited, or was replayed): its key must still replay.
    await row('late-finisher', 'succeeded', 500, 2);
    expect(await pruneCommands(t.database, 24, 3)).toBe(7);
    const left = await sql`select id from commands order by id`;
    expect(left.map((r) => r.id)).toEqual(['late-finisher', 'old-queued', 'old-running', 'recent-done']);
  });

  it('keeps inventory batches as a summary, other payloads whole', () => {
    const records = Array.from({ length: 3 }, (_, i) => ({ remote_id: i + 1 }));
    expect(storedPayload('inventory.upsert', { officeId: 10, records })).toEqual({ officeId: 10, items: 3, summarized: true });
    expect(storedPayload('inventory.remove', { officeId: 10, remoteIds: [1, 2] })).toEqual({ officeId: 10, items: 2, summarized: true });
    expect(storedPayload('order.accept', { order_id: 7, reviewer_id: 1 })).toEqual({ order_id: 7, reviewer_id: 1 });
  });
});
