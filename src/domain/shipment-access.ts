import { inArray } from 'drizzle-orm';
import { orderRole } from '../auth/roles.ts';
import type { SqlTx } from '../db/client.ts';
import type { EmailAddressRow } from '../db/ops/contacts.ts';
import { findOrder } from '../db/ops/lock-order.ts';
import { findShipment, followReplacements, type ShipmentRow } from '../db/ops/shipment-rows.ts';
import { shipmentEvents } from '../db/schema.ts';
import { liveShipment } from '../db/sql/live-shipment.ts';
import { onHold } from './hold-rules.ts';
import { sentAhead } from '../db/sent-ahead.ts';
import { lockOrderOfShipment, type LockedOrder } from '../db/sql/lock-order.ts';
import { orderView, type PersistedOrder } from '../../machines/index.ts';
import { Forbidden, InvalidTransition, NotFound, ShipmentReplaced } from '@fulfil/contract';
import type { Actor } from '@fulfil/contract';

export interface OpenedShipment {
  order: LockedOrder;
  shipment: ShipmentRow;
  email: EmailAddressRow | undefined;
  role: 'seller' | 'buyer';
  /** The id a replacement will take (updates only). */
  nextId: number | undefined;
}

/** The lock and the live read of openShipment, sent and not yet awaited. */
export interface SentShipmentReads {
  locking: Promise<LockedOrder | undefined>;
  reading: ReturnType<typeof liveShipment>;
}

/**
 * Sends openShipment's two statements (the order's lock, then the live shipment read under it)
 * without awaiting them: a handler's `open`, so they leave with the command's claim.
 */
export function sendShipmentReads(
  tx: SqlTx,
  shipmentId: number,
  actor: Actor,
  opts: { role: 'seller' | 'buyer'; replaces: boolean; delivers?: boolean },
): SentShipmentReads {
  const locking = sentAhead(lockOrderOfShipment(tx, shipmentId, actor.brokerageId, opts.role));
  // Runs under the lock (it is sent behind it): another command may have replaced it while we
  // waited. A failed lock fails this read too; the lock's error is the one thrown.
  const reading = sentAhead(liveShipment(tx, shipmentId, { drawNextId: opts.replaces, activeHold: opts.delivers === true }));
  return { locking, reading };
}

/**
 * Finds the shipment a command names, locks its order, and checks who may act on it:
 * unknown or foreign → 404 (existence is not revealed), another role → 403, a replaced id → 410
 * with the live id. One exception to 410: a local-pickup update on an id that only the OTHER
 * party's pickup details replaced goes to the live shipment, since seller and buyer cannot
 * know each other's ids and both sending at once is the normal case, not a stale client.
 *
 * The common case costs two statements (lock, live read), sent together (`sent`, when the
 * handler's open sent them with the claim; else here); refusals and replaced ids take a slower
 * path that explains them.
 */
export async function openShipment(
  tx: SqlTx,
  shipmentId: number,
  actor: Actor,
  opts: {
    role: 'seller' | 'buyer';
    operation: string;
    followOtherPartysPickup: boolean;
    replaces: boolean;
    /** A fact from outside (a carrier's scan) is taken during a proposed cancellation too (D-152). */
    duringCancelProposal?: boolean;
    /** A command that delivers (complete, an upload): refused while the order is on hold (D-218). */
    delivers?: boolean;
  },
  sent: SentShipmentReads = sendShipmentReads(tx, shipmentId, actor, opts),
): Promise<OpenedShipment> {
  const order = await sent.locking;
  if (!order) throw await refusal(tx, shipmentId, actor, opts);
  if (order.state === 'cancel_proposed' && !opts.duringCancelProposal) throw awaitingCancelAnswer(order);
  const live = await sent.reading;
  if (!live) throw new NotFound(`shipment ${shipmentId} not found`);
  if (opts.delivers && live.activeHold) throw onHold(order.id, live.activeHold, opts.operation);
  if (live.shipment.id !== shipmentId) {
    const other = opts.role === 'seller' ? 'buyer' : 'seller';
    const followed = await followReplacements(tx.db, shipmentId);
    const chain = followed?.chain ?? [];
    if (!opts.followOtherPartysPickup || !(await onlyPickupsBy(tx, chain, other))) throw new ShipmentReplaced(live.shipment.id);
  }
  return { order, shipment: live.shipment, email: live.email, role: opts.role, nextId: live.nextId };
}

/** A proposed cancellation holds the shipment still until the other party answers it (docs/LIFECYCLE.md). */
function awaitingCancelAnswer(order: LockedOrder): InvalidTransition {
  const by = orderView(order.snapshot as PersistedOrder).proposedBy ?? 'seller';
  const other = by === 'seller' ? 'buyer' : 'seller';
  return new InvalidTransition(
    `order ${order.id} is cancel_proposed by the ${by}: its shipment cannot change until the ${other} confirms the cancellation or the ${by} withdraws it`,
  );
}

/** Why the lock found nothing: no such shipment or a stranger's (404), or the other party (403). */
async function refusal(tx: SqlTx, shipmentId: number, actor: Actor, opts: { role: string; operation: string }): Promise<Error> {
  const notFound = new NotFound(`shipment ${shipmentId} not found`);
  const shipment = await findShipment(tx.db, shipmentId);
  const party = shipment && (await findOrder(tx.db, shipment.orderId));
  if (!party || orderRole(actor, party) === 'stranger') return notFound;
  return new Forbidden(`only the ${opts.role} may ${opts.operation}`);
}

async function onlyPickupsBy(tx: SqlTx, replacedIds: number[], role: string): Promise<boolean> {
  if (replacedIds.length === 0) return false;
  const hops = await tx.db
    .select({ kind: shipmentEvents.kind, actorRole: shipmentEvents.actorRole })
    .from(shipmentEvents)
    .where(inArray(shipmentEvents.shipmentId, replacedIds));
  return hops.length === replacedIds.length && hops.every((h) => h.kind === 'pickup_details' && h.actorRole === role);
}
