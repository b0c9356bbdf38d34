import {
  EXTENDING_HOLD_REASONS,
  Forbidden,
  InvalidParams,
  InvalidTransition,
  SELLER_HOLD_REASONS,
  type HoldReason,
} from '@fulfil/contract';
import type { SqlRunner } from '../db/client.ts';
import type { HoldRow } from '../db/sql/holds.ts';

/**
 * How late a buyer's answer to an awaiting_buyer_info hold must be for the time held to move the
 * deadline (D-214): the buyer had a day; what the seller waited beyond it is the buyer's.
 */
export const BUYER_ANSWER_GRACE_MS = 24 * 3600_000;

/** Who acts on a hold: the seller (its reasons), the buyer (none), an operator (any). */
export type HoldPlacer = 'seller' | 'buyer' | 'operator';

/** Whether `who` may place, and so release, a hold with this reason (D-212): 403 naming who may. */
export function assertMayHold(who: HoldPlacer, reason: HoldReason, operation: 'place' | 'release'): void {
  if (who === 'operator') return;
  if (who === 'seller' && (SELLER_HOLD_REASONS as readonly string[]).includes(reason)) return;
  const sellers = SELLER_HOLD_REASONS.join(', ');
  throw new Forbidden(
    who === 'buyer'
      ? `the buyer may not ${operation} a hold; the seller may (${sellers}), an operator any`
      : `only an operator may ${operation} a ${reason} hold; the seller may ${operation} ${sellers}`,
  );
}

// The seats an order has: those its fixture lists, else 1..quantity.
const ORDER_SEATS = `select coalesce((select array_agg(s) from jsonb_array_elements_text(o.seats) s), array(select generate_series(1, o.quantity)::text)) as seats
  from orders o where o.id = $1::bigint`;

/** Every seat named must be one of the order's (`seats.<i>` names the first stranger). */
export async function assertHoldSeats(db: SqlRunner, orderId: number, seats: readonly string[]): Promise<void> {
  if (seats.length === 0) return;
  const [row] = await db.rows<{ seats: string[] | null }>(ORDER_SEATS, [orderId]);
  const known = new Set(row?.seats ?? []);
  const i = seats.findIndex((s) => !known.has(s));
  if (i < 0) return;
  throw InvalidParams.at(`seats.${i}`, `seat ${seats[i]} is not on order ${orderId} (its seats: ${[...known].join(', ') || 'none'})`);
}

/** A command that delivers (complete, upload) while the order has an active hold: 422 naming it (the oldest). */
export function onHold(orderId: number, held: { id: number; reason: string }, operation: string): InvalidTransition {
  return new InvalidTransition(
    `order ${orderId} is on hold (hold ${held.id}, ${held.reason}): it cannot ${operation} until the hold is released`,
  );
}

/** The span of an order's time a released hold counts towards its deadline, if any (D-214). */
function creditedSpan(h: HoldRow): [number, number] | null {
  if (!h.releasedAt) return null;
  const from = h.placedAt.getTime();
  if ((EXTENDING_HOLD_REASONS as readonly string[]).includes(h.reason)) return [from, h.releasedAt.getTime()];
  if (h.reason === 'awaiting_buyer_info' && h.answeredAt && h.answeredAt.getTime() - from > BUYER_ANSWER_GRACE_MS) {
    return [from, Math.min(h.answeredAt.getTime(), h.releasedAt.getTime())];
  }
  return null;
}

function unionLength(spans: Array<[number, number]>): number {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = -Infinity;
  for (const [from, to] of sorted) {
    const start = Math.max(from, end);
    if (to > start) total += to - start;
    end = Math.max(end, to);
  }
  return total;
}

/**
 * What the release of `released` adds to the order's deadline (D-213): the time it held the order
 * that no hold released before it already gave back. Holds that overlap give the time once.
 */
export function extensionOf(released: HoldRow, others: readonly HoldRow[]): number {
  const before = others
    .filter((h) => h.id !== released.id)
    .map(creditedSpan)
    .filter((s): s is [number, number] => s !== null);
  const mine = creditedSpan(released);
  if (!mine) return 0;
  return unionLength([...before, mine]) - unionLength(before);
}
