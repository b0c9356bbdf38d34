import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fireTimer } from '../../src/timers/fire-timer.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

// Faults around a deadline timer's run: the same timer's job run several times at once (a
// redelivered job beside the sweep's re-armed copy, on several workers) and late again afterwards
// emits its event once; the order's row lock and fired column decide, not Redis.

describe('deadline timer faults', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    const sql = db.database.sql!;
    await sql`insert into brokerages (id, name) values (1, 's'), (2, 'b')`;
    await sql`insert into offices (id, brokerage_id, name) values (10, 1, 'o')`;
    await sql`insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email,
                state, deliver_by, due_soon_at)
              values (1, '1-1', 10, 2, 'tbd', 1, 'n', 'n@x.test', 'accepted', now() - interval '1 second', now() - interval '3 seconds')`;
  });
  afterAll(async () => {
    await db?.drop();
  });

  const eventsOf = async (kind: string) =>
    (await db.database.sql!`select count(*)::int as n from shipment_events where order_id = 1 and kind = ${kind}`)[0]!.n as number;

  it('a timer run several times at once, and late again, emits its event once', async () => {
    for (const kind of ['due_soon', 'overdue'] as const) {
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => fireTimer(db.database, 1, kind)));
      expect(
        outcomes.filter((o) => o.kind === 'fired'),
        kind,
      ).toHaveLength(1);
      expect(
        outcomes.filter((o) => o.kind === 'already_fired'),
        kind,
      ).toHaveLength(5);
      expect(await fireTimer(db.database, 1, kind, Date.now() + 3_600_000)).toEqual({ kind: 'already_fired' });
      expect(await eventsOf(kind), kind).toBe(1);
    }
  });
});
