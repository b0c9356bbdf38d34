import { InvalidParams, InvalidTransition } from '@fulfil/contract';
import type { SqlRunner } from '../db/database.ts';
import type { LockedPartyOrder } from '../db/sql/lock-order.ts';

// When a buyer may say the tickets did not arrive, and which seats it may name.

/** 48 hours: the seller's time to answer when DELIVERY_ISSUE_RESPONSE_WINDOW is not set. */
export const DEFAULT_ISSUE_RESPONSE_WINDOW_MS = 48 * 3600_000;

/**
 * A completed order, or one whose tickets are still on their way (its live shipment neither
 * delivered nor canceled) after its deliver_by passed or while the buyer's confirmation window of
 * a seller's delivered claim runs. Anything else is 422 saying why.
 */
export function assertIssueAllowed(order: LockedPartyOrder, now: Date): void {
  if (order.state === 'completed') return;
  const inTransit = order.shipment && order.shipment.state !== 'canceled' && order.shipment.state !== 'delivered';
  const open = order.state === 'accepted' || order.state === 'cancel_proposed';
  if (open && inTransit && order.deliverBy && order.deliverBy.getTime() <= now.getTime()) return;
  // The seller claims delivery and the buyer's confirmation window runs: disputing it is the point.
  if (open && inTransit && order.receiptConfirmBy) return;
  const why =
    open && order.deliverBy
      ? `its deliver_by (${order.deliverBy.toISOString()}) has not passed`
      : open
        ? 'it has no deliver_by and is not completed'
        : `it is ${order.state}`;
  throw new InvalidTransition(
    `order ${order.id} is ${order.state}: a delivery issue is opened on a completed order, or on one still in transit past its deliver_by or in its confirmation window; ${why}`,
  );
}

/**
 * How many delivery issues one order may have, and how many answers (reissues and responses) its
 * seller may give across them: each issue, answer and event stays in the order's history for
 * good, so a loop of them must end (D-173). Past either: 422 saying so.
 */
export const MAX_ISSUES_PER_ORDER = 10;
export const MAX_ANSWERS_PER_ORDER = 20;

const COUNTS = `select (select count(*) from delivery_issues where order_id = $1::bigint)::int as issues,
  (select count(*) from delivery_issue_responses where order_id = $1::bigint)::int as answers`;

/** Room for one more issue (the buyer) or one more answer (the seller) on the order, or 422 with the limit. */
export async function assertRoomFor(db: SqlRunner, orderId: number, what: 'issue' | 'answer'): Promise<void> {
  const [row] = await db.rows<{ issues: number; answers: number }>(COUNTS, [orderId]);
  if (what === 'issue' && (row?.issues ?? 0) >= MAX_ISSUES_PER_ORDER) {
    throw new InvalidTransition(
      `order ${orderId} has had ${MAX_ISSUES_PER_ORDER} delivery issues, the most one order may have; an operator can still look at it (docs/OPERATIONS.md, Delivery issues)`,
    );
  }
  if (what === 'answer' && (row?.answers ?? 0) >= MAX_ANSWERS_PER_ORDER) {
    throw new InvalidTransition(
      `order ${orderId} has had ${MAX_ANSWERS_PER_ORDER} answers from its seller (reissues and responses), the most one order may have; the buyer may escalate the issue for an operator to decide`,
    );
  }
}

// The seats an order names: those given at acceptance, on its e-tickets, and with its barcodes.
const SEATS = `
select array(
  select jsonb_array_elements_text(coalesce(o.seats, '[]'::jsonb)) from orders o where o.id = $1::bigint
  union select f.seat from shipment_files f join shipment_file_sets s on s.id = f.set_id where s.order_id = $1::bigint and f.seat is not null
  union select t->>'seat' from shipment_events e, jsonb_array_elements(coalesce(e.details->'tickets', '[]'::jsonb)) t
    where e.order_id = $1::bigint and e.kind = 'completed'
  union select b.seat from shipment_barcodes b where b.order_id = $1::bigint and b.seat is not null
) as seats`;

/** Seats named by an issue, or by a reissue's barcodes, must be the order's (400 naming the first that is not). */
export async function assertSeatsOfOrder(
  db: SqlRunner,
  orderId: number,
  seats: ReadonlyArray<{ seat: string; field: string }>,
): Promise<void> {
  if (seats.length === 0) return;
  const [row] = await db.rows<{ seats: string[] }>(SEATS, [orderId]);
  const known = new Set(row?.seats ?? []);
  const stranger = seats.find((s) => !known.has(s.seat));
  if (!stranger) return;
  const list = [...known].sort();
  throw new InvalidParams(
    `${stranger.field}: seat ${stranger.seat} is not on order ${orderId}${list.length ? ` (its seats: ${list.join(', ')})` : '; the order names no seats, leave the seat out'}`,
    stranger.field,
  );
}
