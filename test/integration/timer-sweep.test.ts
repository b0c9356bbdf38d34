import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TimerQueue, timerJobId } from '../../src/timers/deadline-timers.ts';
import { sweepTimers } from '../../src/timers/sweep-timers.ts';
import { openTimers } from '../../src/timers/timer-rows.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';

// The sweep reads every open order's unfired timers exactly once, page after page, even where
// deadlines share a millisecond; it arms what Redis lacks, moves a job due at another time, and
// leaves finished orders and fired timers alone.

describe('the timer sweep', () => {
  let db: TestDatabase;
  let queue: TimerQueue;
  let redis: Redis;
  const prefix = testPrefix();
  beforeAll(async () => {
    db = await createTestDatabase();
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    queue = new TimerQueue({ prefix, connection: redis });
    const sql = db.database.sql!;
    await sql`insert into brokerages (id, name) values (1, 's'), (2, 'b')`;
    await sql`insert into offices (id, brokerage_id, name) values (10, 1, 'o')`;
    // Orders 1-6 share one millisecond of deadline, a microsecond apart; 7 has fired its reminder,
    // 8 is completed, 9 has no deadline.
    await sql`insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email,
                state, deliver_by, due_soon_at, due_soon_fired_at)
              select g, '1-' || g, 10, 2, 'tbd', 1, 'n', 'n@x.test', case when g = 8 then 'completed' else 'accepted' end,
                case when g = 9 then null else '2030-01-01T00:00:00.000Z'::timestamptz + (g * interval '1 microsecond') end,
                case when g = 9 then null else '2029-12-31T00:00:00Z'::timestamptz end,
                case when g = 7 then now() end
              from generate_series(1, 9) g`;
  });
  afterAll(async () => {
    await queue?.close();
    redis?.disconnect();
    await dropPrefix(prefix);
    await db?.drop();
  });

  it('pages through the open orders once each, by deadline to the microsecond', async () => {
    const seen: string[] = [];
    for await (const page of openTimers(db.database, 2)) for (const t of page) seen.push(`${t.orderId}:${t.kind}`);
    const expected = [1, 2, 3, 4, 5, 6].flatMap((id) => [`${id}:due_soon`, `${id}:overdue`]);
    expect(seen).toEqual([...expected, '7:overdue']);
  });

  it('arms the missing timers, moves a stale one, and checks without change when all are armed', async () => {
    const due = Date.parse('2029-12-31T00:00:00Z');
    await queue.queue.add(
      'due_soon',
      { orderId: 2, kind: 'due_soon', dueAt: due - 5_000 },
      { jobId: timerJobId(2, 'due_soon'), delay: 60_000 },
    );
    expect(await sweepTimers(db.database, queue)).toEqual({ checked: 13, armed: 13 });
    expect((await queue.queue.getJob(timerJobId(2, 'due_soon')))?.data.dueAt).toBe(due);
    expect(await queue.queue.getJob(timerJobId(8, 'overdue'))).toBeUndefined();
    expect(await queue.queue.getJob(timerJobId(7, 'due_soon'))).toBeUndefined();
    expect(await queue.queue.getJobCountByTypes('delayed')).toBe(13);
    expect(await sweepTimers(db.database, queue)).toEqual({ checked: 13, armed: 0 });
  });
});
