import type { SqlRunner } from '../client.ts';
import { nextShipmentIdSql } from './shipment-id.ts';

/** The order as a command needs it, read under its row lock. */
export interface LockedOrder {
  id: number;
  oid: string;
  delivery: 'tbd' | 'flash' | 'local_pickup';
  quantity: number;
  recipientName: string;
  recipientEmail: string;
  state: 'pending' | 'accepted' | 'completed';
  snapshot: unknown;
  sellerBrokerageId: number;
  buyerBrokerageId: number;
}

const ORDER_COLUMNS = `o.id, o.oid, o.delivery, o.quantity, o.recipient_name as "recipientName",
  o.recipient_email as "recipientEmail", o.state, o.snapshot, f.brokerage_id as "sellerBrokerageId",
  o.buyer_brokerage_id as "buyerBrokerageId"`;

// The caller's role sits in the WHERE clause: rows that fail it are never locked, so another
// brokerage (or the wrong party) can neither take nor wait on an order's lock. Should one
// brokerage be both parties it acts as the seller (auth/roles.ts), hence the buyer's `<>`.
const AS_SELLER = 'f.brokerage_id = $2::bigint';
const AS_BUYER = 'o.buyer_brokerage_id = $2::bigint and f.brokerage_id <> $2::bigint';

const lockById = (role: string) => `
select ${ORDER_COLUMNS}, exists (select 1 from users u where u.id = $3::bigint and u.brokerage_id = $2::bigint) as "reviewerOk",
  ${nextShipmentIdSql('o.id')} as "nextShipmentId"
from orders o join offices f on f.id = o.seller_office_id
where o.id = $1::bigint and ${role}
for update of o`;

// The order is named by its key (the shipment's order_id, as a scalar subquery), not joined from
// the shipment: as a join, a plan built from fresh statistics could merge-join along the orders'
// primary key from its start, thousands of rows a command (docs/BENCHMARKS.md).
const lockByShipment = (role: string) => `
select ${ORDER_COLUMNS}
from orders o join offices f on f.id = o.seller_office_id
where o.id = (select s.order_id from shipments s where s.id = $1::bigint) and ${role}
for update of o`;

const LOCK_FOR_ACCEPT = lockById(AS_SELLER);
const LOCK_BY_SHIPMENT = { seller: lockByShipment(AS_SELLER), buyer: lockByShipment(AS_BUYER) } as const;

/**
 * Locks an order the seller acts on, tells whether `reviewerId` is a user of the seller's
 * brokerage, and draws the id its first shipment will have (so the answer is known before the
 * write that stores it). Every command on an order and its shipments serialises on this lock, which is what
 * rules out lost updates and duplicate shipments. Undefined: no such order, or not the seller's.
 */
export async function lockOrderForAccept(
  tx: SqlRunner,
  orderId: number,
  brokerageId: number,
  reviewerId: number,
): Promise<(LockedOrder & { reviewerOk: boolean; nextShipmentId: number }) | undefined> {
  const [row] = await tx.rows<LockedOrder & { reviewerOk: boolean; nextShipmentId: number }>(LOCK_FOR_ACCEPT, [
    orderId,
    brokerageId,
    reviewerId,
  ]);
  return row;
}

/** Locks the order of a shipment when the caller is its `role`; undefined otherwise. */
export async function lockOrderOfShipment(
  tx: SqlRunner,
  shipmentId: number,
  brokerageId: number,
  role: 'seller' | 'buyer',
): Promise<LockedOrder | undefined> {
  const [row] = await tx.rows<LockedOrder>(LOCK_BY_SHIPMENT[role], [shipmentId, brokerageId]);
  return row;
}
