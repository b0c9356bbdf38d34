import type { OrderState } from '../../../machines/index.ts';
import type { SqlRunner } from '../client.ts';
import { named, type Placeholders } from './named-params.ts';
import { nextShipmentIdSql } from './shipment-id.ts';

/** The order as a command needs it, read under its row lock. */
export interface LockedOrder {
  id: number;
  oid: string;
  delivery: 'tbd' | 'flash' | 'local_pickup';
  quantity: number;
  recipientName: string;
  recipientEmail: string;
  state: OrderState;
  snapshot: unknown;
  sellerBrokerageId: number;
  buyerBrokerageId: number;
  /** Whether the order has a deadline, hence timers in Redis to remove when it finishes. */
  hasDeadline: boolean;
  /**
   * The time of the order's test clock (D-180), null on the wall clock. The lock also makes it the
   * transaction's clock (`fulfil.clock`): what the command stamps with fulfil_now(), and its event's
   * time, are the clock's. A command reads the order's time with orderNow().
   */
  clockTime: Date | null;
  /** false: a test order (test mode), whose carrier is the simulator and which calls no carrier. */
  livemode: boolean;
}

/** The order's time now: its test clock's, or the wall clock's. */
export function orderNow(order: { clockTime: Date | null }): Date {
  return order.clockTime ? new Date(order.clockTime) : new Date();
}

/**
 * The lock statements' columns that read the order's test clock and make it the transaction's.
 * Live orders (no clock) skip both subqueries; `set_config(…, true)` lasts until the transaction ends.
 */
export const ORDER_CLOCK_COLUMNS = `case when o.test_clock_id is not null then (select c.frozen_time from test_clocks c where c.id = o.test_clock_id) end as "clockTime",
  case when o.test_clock_id is not null then set_config('fulfil.clock', (select c.frozen_time::text from test_clocks c where c.id = o.test_clock_id), true) end as "clockSet"`;

const ORDER_COLUMNS = `o.id, o.oid, o.delivery, o.quantity, o.recipient_name as "recipientName",
  o.recipient_email as "recipientEmail", o.state, o.snapshot, f.brokerage_id as "sellerBrokerageId",
  o.buyer_brokerage_id as "buyerBrokerageId", o.deliver_by is not null as "hasDeadline", o.livemode, ${ORDER_CLOCK_COLUMNS}`;

// The caller's role sits in the WHERE clause: rows that fail it are never locked, so another
// brokerage (or the wrong party) can neither take nor wait on an order's lock. Should one
// brokerage be both parties it acts as the seller (auth/roles.ts), hence the buyer's `<>`.
type Role = (p: Placeholders<{ brokerageId: number }>) => string;
const AS_SELLER: Role = (p) => `f.brokerage_id = ${p.brokerageId}::bigint`;
/**
 * Whether the reviewer is a user of the caller's brokerage. A sandbox twin has no users of its
 * own: its test credentials name the live brokerage's users, as they would in live mode (D-148).
 */
const reviewerOk = (p: Placeholders<{ brokerageId: number; reviewerId: number }>) =>
  `exists (select 1 from users u where u.id = ${p.reviewerId}::bigint and u.brokerage_id =
    coalesce((select b.sandbox_of from brokerages b where b.id = ${p.brokerageId}::bigint), ${p.brokerageId}::bigint))`;
const AS_BUYER: Role = (p) => `o.buyer_brokerage_id = ${p.brokerageId}::bigint and f.brokerage_id <> ${p.brokerageId}::bigint`;

const lockById = (role: Role) =>
  named<{ orderId: number; brokerageId: number; reviewerId: number }>(
    (p) => `
select ${ORDER_COLUMNS}, ${reviewerOk(p)} as "reviewerOk",
  ${nextShipmentIdSql('o.id')} as "nextShipmentId"
from orders o join offices f on f.id = o.seller_office_id
where o.id = ${p.orderId}::bigint and ${role(p)}
for update of o`,
  );

// The order is named by its key (the shipment's order_id, as a scalar subquery), not joined from
// the shipment: as a join, a plan built from fresh statistics could merge-join along the orders'
// primary key from its start, thousands of rows a command (docs/BENCHMARKS.md).
const lockByShipment = (role: Role) =>
  named<{ shipmentId: number; brokerageId: number }>(
    (p) => `
select ${ORDER_COLUMNS}
from orders o join offices f on f.id = o.seller_office_id
where o.id = (select s.order_id from shipments s where s.id = ${p.shipmentId}::bigint) and ${role(p)}
for update of o`,
  );

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
  const [row] = await tx.rows<LockedOrder & { reviewerOk: boolean; nextShipmentId: number }>(
    LOCK_FOR_ACCEPT.text,
    LOCK_FOR_ACCEPT.params({ orderId, brokerageId, reviewerId }),
  );
  return row;
}

/** An order as the commands on the order itself need it (reject, cancel, its in-hand date). */
export interface LockedPartyOrder extends LockedOrder {
  role: 'seller' | 'buyer';
  reviewerOk: boolean;
  inHandOn: string | null;
  eventStartsAt: Date | null;
  deliverBy: Date | null;
  dueSoonAt: Date | null;
  /** While the buyer's confirmation window runs (a seller's delivered claim), when it ends. */
  receiptConfirmBy: Date | null;
  /** The live shipment, if the order has one. */
  shipment: { id: number; type: string; state: string; snapshot: unknown } | null;
}

// Either party: the role comes back with the row (the seller's, should one brokerage be both).
const LOCK_AS_PARTY = named<{ orderId: number; brokerageId: number; reviewerId: number }>(
  (p) => `
select ${ORDER_COLUMNS}, case when f.brokerage_id = ${p.brokerageId}::bigint then 'seller' else 'buyer' end as role,
  ${reviewerOk(p)} as "reviewerOk",
  o.in_hand_on::text as "inHandOn", o.event_starts_at as "eventStartsAt", o.deliver_by as "deliverBy", o.due_soon_at as "dueSoonAt",
  o.receipt_confirm_by as "receiptConfirmBy",
  (select json_build_object('id', s.id, 'type', s.type, 'state', s.state, 'snapshot', s.snapshot) from shipments s
    where s.order_id = o.id and s.replaced_by is null) as shipment
from orders o join offices f on f.id = o.seller_office_id
where o.id = ${p.orderId}::bigint and (f.brokerage_id = ${p.brokerageId}::bigint or o.buyer_brokerage_id = ${p.brokerageId}::bigint)
for update of o`,
);

/**
 * Locks an order either party acts on and tells which party the caller is. Undefined: no such
 * order or a stranger's (the caller cannot take or wait on a lock of an order not theirs).
 * `reviewerId`: whether that user is of the caller's brokerage (0 when the command names none).
 */
export async function lockOrderAsParty(
  tx: SqlRunner,
  orderId: number,
  brokerageId: number,
  reviewerId = 0,
): Promise<LockedPartyOrder | undefined> {
  const [row] = await tx.rows<LockedPartyOrder>(LOCK_AS_PARTY.text, LOCK_AS_PARTY.params({ orderId, brokerageId, reviewerId }));
  if (!row) return undefined;
  // json_build_object gives the id as a JSON number and timestamps as they are typed.
  return {
    ...row,
    eventStartsAt: row.eventStartsAt && new Date(row.eventStartsAt),
    deliverBy: row.deliverBy && new Date(row.deliverBy),
    dueSoonAt: row.dueSoonAt && new Date(row.dueSoonAt),
  };
}

/** Locks the order of a shipment when the caller is its `role`; undefined otherwise. */
export async function lockOrderOfShipment(
  tx: SqlRunner,
  shipmentId: number,
  brokerageId: number,
  role: 'seller' | 'buyer',
): Promise<LockedOrder | undefined> {
  const lock = LOCK_BY_SHIPMENT[role];
  const [row] = await tx.rows<LockedOrder>(lock.text, lock.params({ shipmentId, brokerageId }));
  return row;
}
