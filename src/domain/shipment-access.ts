import { inArray } from 'drizzle-orm';
import { orderRole, type OrderRole } from '../auth/roles.ts';
import type { Tx } from '../db/client.ts';
import { findOrder, lockOrder, type LockedOrder } from '../db/ops/lock-order.ts';
import { findShipment, followReplacements, type ShipmentRow } from '../db/ops/shipment-rows.ts';
import { shipmentEvents } from '../db/schema.ts';
import { Forbidden, NotFound, ShipmentReplaced } from '../errors.ts';
import type { Actor } from '../queues/job-map.ts';

export interface OpenedShipment {
  order: LockedOrder;
  shipment: ShipmentRow;
  role: Exclude<OrderRole, 'stranger'>;
}

/**
 * Finds the shipment a command names, locks its order, and checks who may act on it:
 * unknown or foreign → 404 (existence is not revealed), another role → 403, a replaced id → 410
 * with the live id. One exception to 410: a local-pickup update on an id that only the OTHER
 * party's pickup details replaced goes to the live shipment, since seller and buyer cannot
 * know each other's ids and both sending at once is the normal case, not a stale client.
 */
export async function openShipment(
  tx: Tx,
  shipmentId: number,
  actor: Actor,
  opts: { role: 'seller' | 'buyer'; operation: string; followOtherPartysPickup: boolean },
): Promise<OpenedShipment> {
  const notFound = () => new NotFound(`shipment ${shipmentId} not found`);
  const first = await findShipment(tx, shipmentId);
  if (!first) throw notFound();
  const party = await findOrder(tx, first.orderId);
  const role = party ? orderRole(actor, party) : 'stranger';
  if (role === 'stranger') throw notFound();
  if (role !== opts.role) throw new Forbidden(`only the ${opts.role} may ${opts.operation}`);
  const order = await lockOrder(tx, first.orderId);
  if (!order) throw notFound();
  // Re-read under the lock: another command may have replaced it while we waited.
  const followed = await followReplacements(tx, shipmentId);
  if (!followed) throw notFound();
  const { live, chain } = followed;
  if (chain.length > 0) {
    const other = role === 'seller' ? 'buyer' : 'seller';
    if (!opts.followOtherPartysPickup || !(await onlyPickupsBy(tx, chain, other))) throw new ShipmentReplaced(live.id);
  }
  return { order, shipment: live, role };
}

async function onlyPickupsBy(tx: Tx, replacedIds: number[], role: string): Promise<boolean> {
  const hops = await tx
    .select({ kind: shipmentEvents.kind, actorRole: shipmentEvents.actorRole })
    .from(shipmentEvents)
    .where(inArray(shipmentEvents.shipmentId, replacedIds));
  return hops.length === replacedIds.length && hops.every((h) => h.kind === 'pickup_details' && h.actorRole === role);
}
