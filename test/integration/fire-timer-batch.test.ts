import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FireBatcher } from '../../src/timers/fire-batch.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

// Deadline timers due together fire in shared transactions (group commit): 50 orders' jobs at
// once, some named twice, some finished, one not yet due, give one event per due open order, each
// joined to its own shipment, and the events come from at most three transactions (two batches
// start at once with the first two jobs, the rest queue into the next), not one per timer.

const OPEN = Array.from({ length: 44 }, (_, i) => i + 1); // 1..44 open and due; 1..20 with a shipment
const FINISHED = [45, 46, 47, 48, 49];
const FUTURE = 50;

describe('deadline timers fired in batches', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    const sql = db.database.sql!;
    await sql`insert into brokerages (id, name) values (1, 's'), (2, 'b')`;
    await sql`insert into offices (id, brokerage_id, name) values (10, 1, 'o')`;
    await sql`insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email,
                state, deliver_by, due_soon_at)
              select i, '1-' || i, 10, 2, 'tbd', 1, 'n', 'n@x.test',
                case when i between 45 and 49 then 'completed' else 'accepted' end,
                case when i = 50 then now() + interval '1 hour' else now() - interval '1 second' end, now() - interval '3 seconds'
              from generate_series(1, 50) as i`;
    await sql`insert into shipments (order_id, type, state, snapshot) select i, 'TBD', 'pending', '{}' from generate_series(1, 20) as i`;
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('one event per due open order, none for finished or future ones, from a few transactions', async () => {
    const batcher = new FireBatcher(db.database);
    const ids = [...OPEN, ...FINISHED, FUTURE, 1, 2, 3];
    const outcomes = await Promise.all(ids.map((id) => batcher.fire(id, 'overdue')));
    const of = (id: number) => outcomes.filter((_, i) => ids[i] === id).map((o) => o.kind);

    for (const id of OPEN)
      expect(
        of(id).filter((k) => k === 'fired'),
        `order ${id}`,
      ).toHaveLength(1);
    for (const id of [1, 2, 3]) expect(of(id).sort(), `order ${id}`).toEqual(['already_fired', 'fired']);
    for (const id of FINISHED) expect(of(id)).toEqual(['finished']);
    expect(outcomes[ids.indexOf(FUTURE)]).toMatchObject({ kind: 'not_due' });

    const events = await db.database.sql!`
      select e.order_id, e.seq, e.new_shipment_id, s.id as shipment_id, e.xmin::text as xact
      from shipment_events e left join shipments s on s.order_id = e.order_id and s.replaced_by is null
      where e.kind = 'overdue' order by e.order_id`;
    expect(events.map((e) => e.order_id)).toEqual(OPEN);
    for (const e of events) {
      expect(e.seq, `order ${e.order_id}`).toBe(1);
      expect(e.new_shipment_id, `order ${e.order_id}`).toBe(e.shipment_id);
    }
    const transactions = new Set(events.map((e) => e.xact));
    expect(transactions.size).toBeLessThanOrEqual(3);
    const outbox = await db.database.sql!`
      select count(*)::int as n from event_feed f join shipment_events e on e.id = f.event_row_id where f.position is null and e.kind = 'overdue'`;
    expect(outbox[0]!.n).toBe(OPEN.length);
  });
});
