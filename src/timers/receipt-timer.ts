import type { Database, SqlRunner, SqlTx } from '../db/client.ts';
import { undecidedIssueOf } from '../db/sql/delivery-issues.ts';
import { liveShipment } from '../db/sql/live-shipment.ts';
import { closeReceiptWindow, completeOnReceipt } from '../domain/receipt-window.ts';
import { RECEIPT_KIND, type TimerJob } from './deadline-timers.ts';
import type { FireOutcome } from './fire-timer.ts';

/**
 * The buyer's confirmation window (D-156), a durable timer like the escalation's: Postgres holds
 * when it ends (orders.receipt_confirm_by) and whether it is still open (the column set, the order
 * accepted); Redis holds one delayed job per order that only says "look now". The run decides
 * under the order's lock, so a job run twice, late or after the sweep re-armed it completes the
 * order once; a window the buyer answered (confirmed, or a delivery issue opened) does nothing.
 */

/** The system actor's reason on a completion at the window's end. */
export const UNCHALLENGED_REASON = 'unchallenged_claim';

const OPEN_WINDOW = `select id, receipt_confirm_by as "confirmBy" from orders where receipt_confirm_by is not null and state = 'accepted'`;
// Wall-clock orders only: an order on a test clock has its timers fired by the clock's advance.
const WALL = `${OPEN_WINDOW} and test_clock_id is null`;

const jobOf = (r: { id: string | number; confirmBy: Date | string }): TimerJob => ({
  orderId: Number(r.id),
  kind: RECEIPT_KIND,
  dueAt: new Date(r.confirmBy).getTime(),
});

/** The order's confirmation timer to arm; none when no window is open. */
export async function receiptTimerOf(db: SqlRunner, orderId: number): Promise<TimerJob | undefined> {
  const [row] = await db.rows<{ id: string; confirmBy: Date | string }>(`${WALL} and id = $1::bigint`, [orderId]);
  return row && jobOf(row);
}

/** Every open window's timer, a page at a time (orders_receipt_confirm_by_idx), for the sweep. */
export async function* openReceiptWindows(db: SqlRunner, pageSize = 5_000): AsyncGenerator<TimerJob[]> {
  let afterId = 0;
  for (;;) {
    const rows = await db.rows<{ id: string; confirmBy: Date | string }>(`${WALL} and id > $1::bigint order by id limit $2::int`, [
      afterId,
      pageSize,
    ]);
    if (rows.length === 0) return;
    yield rows.map(jobOf);
    afterId = Number(rows[rows.length - 1]!.id);
    if (rows.length < pageSize) return;
  }
}

/** The confirmation windows of a test clock's orders ending by `upTo`, earliest first (its advance). */
export async function receiptWindowsOnClock(db: SqlRunner, clockId: number, upTo: Date, limit: number): Promise<TimerJob[]> {
  const rows = await db.rows<{ id: string; confirmBy: Date | string }>(
    `${OPEN_WINDOW} and test_clock_id = $1::bigint and receipt_confirm_by <= $2::timestamptz order by receipt_confirm_by, id limit $3::int`,
    [clockId, upTo.toISOString(), limit],
  );
  return rows.map(jobOf);
}

/**
 * One run at the window's end, in one transaction under the order's lock: unchallenged (no
 * delivery issue undecided), the seller's claim completes the order, `completed_by:
 * "unchallenged_claim"`; challenged, the issue decides and the window closes.
 */
export async function fireReceiptWindow(database: Database, orderId: number, now = Date.now()): Promise<FireOutcome> {
  return database.transaction((tx) => fireReceiptWindowIn(tx, orderId, now));
}

/** fireReceiptWindow's work in the caller's transaction (a test clock's advance fires many in one). */
export async function fireReceiptWindowIn(tx: SqlTx, orderId: number, now: number): Promise<FireOutcome> {
  {
    const [order] = await tx.rows<{ id: string; state: string; snapshot: unknown; confirmBy: Date | string | null }>(
      `select id, state, snapshot, receipt_confirm_by as "confirmBy" from orders where id = $1::bigint for update`,
      [orderId],
    );
    if (!order || order.confirmBy === null) return { kind: 'finished' };
    if (order.state !== 'accepted') return { kind: 'finished' };
    const dueAt = new Date(order.confirmBy).getTime();
    if (dueAt > now) return { kind: 'not_due', dueAt };
    if (await undecidedIssueOf(tx, orderId)) {
      await closeReceiptWindow(tx, orderId);
      return { kind: 'finished' };
    }
    const [live] = await tx.rows<{ id: string }>(`select id from shipments where order_id = $1::bigint and replaced_by is null`, [orderId]);
    const shipment = live && (await liveShipment(tx, Number(live.id), { drawNextId: false }));
    const completed =
      shipment &&
      (await completeOnReceipt(
        tx,
        { id: orderId, snapshot: order.snapshot, clockTime: new Date(now) },
        shipment.shipment,
        'unchallenged_claim',
        {
          actor: { type: 'system', reason: UNCHALLENGED_REASON },
        },
      ));
    if (!completed) {
      await closeReceiptWindow(tx, orderId);
      return { kind: 'finished' };
    }
    return { kind: 'fired', dueAt };
  }
}
