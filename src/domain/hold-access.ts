import { Forbidden, NotFound, type Actor } from '@fulfil/contract';
import type { SqlTx } from '../db/client.ts';
import { holdById, orderOfHold, type HoldActor, type HoldRow } from '../db/sql/holds.ts';
import { ORDER_CLOCK_COLUMNS, orderNow } from '../db/sql/lock-order.ts';
import type { HoldEventActor } from './hold-release.ts';
import type { HoldPlacer } from './hold-rules.ts';
import { openPartyOrder } from './order-commands.ts';

/** The order a hold command acts on, locked, and who acts. */
export interface HoldOrder {
  id: number;
  state: string;
  /** The order's time now (its test clock's, or the wall clock's). */
  now: Date;
  shipment: { id: number; type: string; state: string } | null;
  who: HoldPlacer;
  by: HoldActor;
  eventActor: HoldEventActor;
}

const OPERATOR_LOCK = `select o.id, o.state, ${ORDER_CLOCK_COLUMNS},
  (select json_build_object('id', s.id, 'type', s.type, 'state', s.state) from shipments s where s.order_id = o.id and s.replaced_by is null) as shipment
  from orders o where o.id = $1::bigint for update`;

/**
 * Locks the order a hold command names. An operator's command (the ops page, `fulfil holds`)
 * comes as an upstream job naming the operator (D-217): no party check, the event's actor the
 * service. A party's: a stranger or no such order is 404, the parties act as themselves.
 */
export async function openHoldOrder(
  tx: SqlTx,
  orderId: number,
  actor: Actor,
  command: { operator?: string | undefined; commandId: string; operation: string; only?: 'buyer' },
): Promise<HoldOrder> {
  if (command.operator !== undefined) {
    if (actor.via !== 'upstream') throw new Forbidden('only an operator (the ops page, fulfil holds) names an operator');
    const [row] = await tx.rows<{ id: string; state: string; clockTime: Date | null; shipment: HoldOrder['shipment'] }>(OPERATOR_LOCK, [
      orderId,
    ]);
    if (!row) throw new NotFound(`order ${orderId} not found`);
    return {
      id: Number(row.id),
      state: row.state,
      now: orderNow({ clockTime: row.clockTime && new Date(row.clockTime) }),
      shipment: row.shipment,
      who: 'operator',
      by: { party: 'operator', brokerageId: null, userId: null, operator: command.operator },
      eventActor: { reason: 'operator' },
    };
  }
  const order = await openPartyOrder(tx, orderId, actor, { operation: command.operation, ...(command.only ? { only: command.only } : {}) });
  const s = order.shipment;
  return {
    id: order.id,
    state: order.state,
    now: orderNow(order),
    shipment: s && { id: s.id, type: s.type, state: s.state },
    who: order.role,
    by: { party: order.role, brokerageId: actor.brokerageId, userId: actor.userId, operator: null },
    eventActor: { brokerageId: actor.brokerageId, userId: actor.userId, role: order.role, commandId: command.commandId },
  };
}

/** A hold and its locked order; a stranger or no such hold → 404 naming the hold. */
export async function openHold(
  tx: SqlTx,
  holdId: number,
  actor: Actor,
  command: { operator?: string | undefined; commandId: string; operation: string; only?: 'buyer' },
): Promise<{ order: HoldOrder; hold: HoldRow }> {
  const missing = new NotFound(`hold ${holdId} not found`);
  const orderId = await orderOfHold(tx, holdId);
  if (orderId === undefined) throw missing;
  let order: HoldOrder;
  try {
    order = await openHoldOrder(tx, orderId, actor, command);
  } catch (err) {
    throw err instanceof NotFound ? missing : err;
  }
  return { order, hold: (await holdById(tx, holdId))! };
}
