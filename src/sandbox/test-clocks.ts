import { z } from 'zod';
import { Forbidden, InvalidParams, NotFound, parseOrThrow, TestClockAdvancing } from '@fulfil/contract';
import type { Caller } from '../auth/caller.ts';
import type { SqlRunner, SqlTx } from '../db/client.ts';
import { appendClockEvent, type ClockDelivery } from './clock-events.ts';
import { CLOCK_COLUMNS, toClockRow, type ClockRow } from './clock-row.ts';

export { clockJson, type ClockRow } from './clock-row.ts';

/** The longest step of one advance: a rehearsal's year and a month of slack, not an unbounded loop. */
export const MAX_ADVANCE_DAYS = 400;

const instant = z.iso.datetime({ offset: true });
export const createClockBody = z.strictObject({ frozen_time: instant, name: z.string().trim().min(1).max(200).optional() });
export const advanceClockBody = z.strictObject({ frozen_time: instant });

/** Test clocks are a test credential's; a live one is told so (the routes exist only while SANDBOX is on). */
function assertTestCaller(caller: Caller): void {
  if (caller.livemode) {
    throw new Forbidden('test clocks take a test credential (fulfil credentials create --test); live data never runs on a test clock');
  }
}

/** The caller's clock; another brokerage's (or none) is 404, as another brokerage's order is. */
export async function clockOf(db: SqlRunner, caller: Caller, clockId: number, lock = false): Promise<ClockRow> {
  assertTestCaller(caller);
  const [row] = await db.rows<Record<string, unknown>>(
    `select ${CLOCK_COLUMNS} from test_clocks where id = $1::bigint and brokerage_id = $2::bigint${lock ? ' for update' : ''}`,
    [clockId, caller.brokerageId],
  );
  if (!row) throw new NotFound(`test clock ${clockId} not found`);
  return toClockRow(row);
}

export async function createClock(db: SqlRunner, caller: Caller, body: unknown): Promise<ClockRow> {
  const input = parseOrThrow(createClockBody, body);
  assertTestCaller(caller);
  const [row] = await db.rows<Record<string, unknown>>(
    `insert into test_clocks (brokerage_id, name, frozen_time) values ($1::bigint, $2, $3::timestamptz) returning ${CLOCK_COLUMNS}`,
    [caller.brokerageId, input.name ?? null, input.frozen_time],
  );
  return toClockRow(row!);
}

export async function listClocks(db: SqlRunner, caller: Caller): Promise<ClockRow[]> {
  assertTestCaller(caller);
  const rows = await db.rows<Record<string, unknown>>(
    `select ${CLOCK_COLUMNS} from test_clocks where brokerage_id = $1::bigint order by id`,
    [caller.brokerageId],
  );
  return rows.map(toClockRow);
}

/**
 * Starts an advance (D-180): Postgres records its target and the clock turns `advancing` in the
 * transaction that appends `test_clock.advancing`; the caller then starts the run
 * (clock-advance.ts). Forward only, at most MAX_ADVANCE_DAYS a step, one advance at a time.
 */
export async function startAdvance(
  tx: SqlTx,
  caller: Caller,
  clockId: number,
  body: unknown,
): Promise<{ clock: ClockRow; deliveries: ClockDelivery[] }> {
  const input = parseOrThrow(advanceClockBody, body);
  const clock = await clockOf(tx, caller, clockId, true);
  if (clock.status === 'advancing') throw new TestClockAdvancing(clock.id, clock.advanceTo!.toISOString());
  const to = new Date(input.frozen_time);
  if (to.getTime() <= clock.frozenTime.getTime()) {
    throw new InvalidParams(
      `frozen_time: a test clock moves forward only: give a time after ${clock.frozenTime.toISOString()}, its time now`,
      'frozen_time',
    );
  }
  if (to.getTime() - clock.frozenTime.getTime() > MAX_ADVANCE_DAYS * 86_400_000) {
    throw new InvalidParams(`frozen_time: at most ${MAX_ADVANCE_DAYS} days a step; advance in several steps`, 'frozen_time');
  }
  const [row] = await tx.rows<Record<string, unknown>>(
    `update test_clocks set status = 'advancing', advance_to = $2::timestamptz where id = $1::bigint returning ${CLOCK_COLUMNS}`,
    [clock.id, to.toISOString()],
  );
  const advancing = toClockRow(row!);
  const deliveries = await appendClockEvent(tx, advancing, 'test_clock.advancing');
  return { clock: advancing, deliveries };
}

/** Tables that hold rows of an order besides those named below: found by their order_id column. */
const ORDER_TABLES = `select table_name::text as name from information_schema.columns
  where table_schema = current_schema() and column_name = 'order_id'
    and table_name not in ('orders', 'shipments', 'shipment_events', 'commands') order by table_name`;

/**
 * Deletes the clock and every test object on it (its orders, their shipments, files, issues,
 * scans, events and webhook deliveries), in one transaction. An advancing clock is 409: its run
 * holds the orders. Stored file bytes stay for the housekeeping's pruning, as a replaced set's do.
 */
export async function deleteClock(tx: SqlTx, caller: Caller, clockId: number): Promise<{ id: number; deleted_orders: number }> {
  const clock = await clockOf(tx, caller, clockId, true);
  if (clock.status === 'advancing') throw new TestClockAdvancing(clock.id, clock.advanceTo!.toISOString());
  const orders = (
    await tx.rows<{ id: string }>(`select id from orders where test_clock_id = $1::bigint order by id for update`, [clock.id])
  ).map((r) => Number(r.id));
  if (orders.length > 0) {
    const ids = [orders];
    await tx.rows(`delete from event_feed where event_row_id in (select id from shipment_events where order_id = any($1::bigint[]))`, ids);
    await tx.rows(`delete from label_purchases where shipment_id in (select id from shipments where order_id = any($1::bigint[]))`, ids);
    for (const { name } of await tx.rows<{ name: string }>(ORDER_TABLES, [])) {
      await tx.rows(`delete from "${name.replaceAll('"', '""')}" where order_id = any($1::bigint[])`, ids);
    }
    await tx.rows(`delete from shipment_events where order_id = any($1::bigint[])`, ids);
    await tx.rows(`delete from shipments where order_id = any($1::bigint[])`, ids);
    await tx.rows(`delete from orders where id = any($1::bigint[])`, ids);
  }
  // Its own events' deliveries not yet sent go with it: nothing is left to send them about.
  await tx.rows(
    `delete from webhook_deliveries where order_id is null and event_id in (select event_id from test_clock_events where clock_id = $1::bigint)`,
    [clock.id],
  );
  await tx.rows(`delete from test_clocks where id = $1::bigint`, [clock.id]);
  return { id: clock.id, deleted_orders: orders.length };
}
