import type { SqlRunner } from '../db/client.ts';
import { named } from '../db/sql/named-params.ts';
import type { TimerJob } from './deadline-timers.ts';

// What Postgres says of deadline timers: the truth the jobs in Redis are armed from.

const OPEN = `state in ('pending', 'accepted', 'cancel_proposed')`;
// An order on hold has no deadline timer to arm (D-216): the hold's release arms them again.
const NOT_HELD = `not exists (select 1 from holds h where h.order_id = orders.id and h.released_at is null)`;

interface TimerRow {
  id: number;
  open: boolean;
  dueSoonAt: Date | null;
  deliverBy: Date | null;
  dueSoonFired: boolean;
  overdueFired: boolean;
}

const ORDER_TIMERS = named<{ orderId: number }>(
  (p) => `
select id, ${OPEN} as open, due_soon_at as "dueSoonAt", deliver_by as "deliverBy",
  due_soon_fired_at is not null as "dueSoonFired", overdue_fired_at is not null as "overdueFired"
from orders where id = ${p.orderId}::bigint and test_clock_id is null and ${NOT_HELD}`,
);

/** The timers still to fire of an order's row: none once it finished or has no deadline. */
function pendingTimers(r: TimerRow): TimerJob[] {
  if (!r.open || !r.deliverBy) return [];
  const timers: TimerJob[] = [];
  if (r.dueSoonAt && !r.dueSoonFired) timers.push({ orderId: Number(r.id), kind: 'due_soon', dueAt: new Date(r.dueSoonAt).getTime() });
  if (!r.overdueFired) timers.push({ orderId: Number(r.id), kind: 'overdue', dueAt: new Date(r.deliverBy).getTime() });
  return timers;
}

/** An order's timers to arm; the kinds to remove from Redis are the others. None for an order on a test clock (its advance fires them). */
export async function timersOfOrder(db: SqlRunner, orderId: number): Promise<TimerJob[]> {
  const [row] = await db.rows<TimerRow>(ORDER_TIMERS.text, ORDER_TIMERS.params({ orderId }));
  return row ? pendingTimers(row) : [];
}

// A page of open orders by deadline (orders_open_deliver_by_idx), after the last one seen.
// The cursor keeps the deadline to the microsecond (a Date would round it to the millisecond and
// read rows of that millisecond twice).
const OPEN_TIMERS = named<{ afterUs: string; afterId: number; limit: number }>(
  (p) => `
select id, true as open, due_soon_at as "dueSoonAt", deliver_by as "deliverBy",
  due_soon_fired_at is not null as "dueSoonFired", overdue_fired_at is not null as "overdueFired",
  (extract(epoch from deliver_by) * 1000000)::bigint::text as "deliverByUs"
from orders
where ${OPEN} and deliver_by is not null and test_clock_id is null and ${NOT_HELD}
  and (deliver_by, id) > ('epoch'::timestamptz + ${p.afterUs}::bigint * interval '1 microsecond', ${p.afterId}::bigint)
  and (due_soon_fired_at is null or overdue_fired_at is null)
order by deliver_by, id limit ${p.limit}::int`,
);

/** Every timer still to fire of every open order, a page at a time. */
export async function* openTimers(db: SqlRunner, pageSize = 5_000): AsyncGenerator<TimerJob[]> {
  // From before any deadline a timestamptz holds (4714 BC).
  let after = { us: '-210866803200000000', id: 0 };
  for (;;) {
    const rows = await db.rows<TimerRow & { deliverByUs: string }>(
      OPEN_TIMERS.text,
      OPEN_TIMERS.params({ afterUs: after.us, afterId: after.id, limit: pageSize }),
    );
    if (rows.length === 0) return;
    yield rows.flatMap(pendingTimers);
    const last = rows[rows.length - 1]!;
    after = { us: last.deliverByUs, id: Number(last.id) };
    if (rows.length < pageSize) return;
  }
}

const ON_CLOCK = named<{ clockId: number; upTo: string; limit: number }>(
  (p) => `
select id as "orderId", 'due_soon' as kind, due_soon_at as "dueAt" from orders
where test_clock_id = ${p.clockId}::bigint and ${OPEN} and deliver_by is not null and due_soon_fired_at is null and ${NOT_HELD}
  and due_soon_at <= ${p.upTo}::timestamptz
union all
select id, 'overdue', deliver_by from orders
where test_clock_id = ${p.clockId}::bigint and ${OPEN} and deliver_by is not null and overdue_fired_at is null and ${NOT_HELD}
  and deliver_by <= ${p.upTo}::timestamptz
order by 3, 1 limit ${p.limit}::int`,
);

/** The deadline timers of a test clock's orders due by `upTo`, earliest first (its advance). */
export async function deadlineTimersOnClock(db: SqlRunner, clockId: number, upTo: Date, limit: number): Promise<TimerJob[]> {
  const rows = await db.rows<{ orderId: string; kind: TimerJob['kind']; dueAt: Date | string }>(
    ON_CLOCK.text,
    ON_CLOCK.params({ clockId, upTo: upTo.toISOString(), limit }),
  );
  return rows.map((r) => ({ orderId: Number(r.orderId), kind: r.kind, dueAt: new Date(r.dueAt).getTime() }));
}
