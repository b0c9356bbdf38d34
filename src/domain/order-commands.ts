import { orderRole } from '../auth/roles.ts';
import type { SqlTx } from '../db/client.ts';
import { findOrder } from '../db/ops/lock-order.ts';
import { lockOrderAsParty, type LockedPartyOrder } from '../db/sql/lock-order.ts';
import { readableOrder } from '../read/order-parties.ts';
import { Forbidden, InvalidParams, NotFound, type Actor } from '@fulfil/contract';

/**
 * Locks the order a command on the order itself names and checks who may act: a stranger or a
 * missing order → 404 (existence is not revealed), the other party → 403 naming who may.
 */
export async function openPartyOrder(
  tx: SqlTx,
  orderId: number,
  actor: Actor,
  opts: { only?: 'seller' | 'buyer'; operation: string; reviewerId?: number },
): Promise<LockedPartyOrder> {
  const order = await lockOrderAsParty(tx, orderId, actor.brokerageId, opts.reviewerId ?? 0);
  if (!order) {
    const party = await findOrder(tx.db, orderId);
    if (!party || orderRole(actor, party) === 'stranger') throw new NotFound(`order ${orderId} not found`);
    throw new Error(`order ${orderId} is the caller's but was not locked`);
  }
  if (opts.only && order.role !== opts.only) throw new Forbidden(`only the ${opts.only} may ${opts.operation}`);
  if (opts.reviewerId !== undefined && !order.reviewerOk) {
    throw new InvalidParams('reviewer_id: must be a user of your brokerage', 'reviewer_id');
  }
  return order;
}

/** The answer of a command on an order: the order as its caller now reads it (inside the command's transaction). */
export async function orderAnswerOf(tx: SqlTx, orderId: number, actor: Actor) {
  const order = await readableOrder(tx.db, orderId, actor);
  return { id: order.id, oid: order.oid, ...order.facts };
}

/** The live shipment as an event names it: its id and where it stands; none for an order without one. */
export function shipmentFacts(order: LockedPartyOrder): { shipmentId: number | null; at: { type: string; state: string } | null } {
  const s = order.shipment;
  return { shipmentId: s?.id ?? null, at: s ? { type: s.type, state: s.state } : null };
}
