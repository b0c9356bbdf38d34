import { appendOrderEvent } from '../src/db/sql/append-order-event.ts';
import { setOrderState } from '../src/db/sql/order-writes.ts';
import { openPartyOrder, orderAnswerOf, shipmentFacts } from '../src/domain/order-commands.ts';
import { nextOrderState } from '../src/domain/order-transition.ts';
import { applyHeldScans } from '../src/domain/held-scans.ts';
import { parseOrThrow, withdrawCancelCommand } from '@fulfil/contract';
import { defineHandler } from './handler.ts';

/**
 * DELETE /v9/orders/:id/cancel: the proposer takes the cancellation back; the order is accepted
 * again, and the carrier scans that came meanwhile take their effect (D-152).
 */
export default defineHandler({
  name: 'order.withdraw_cancel',
  parse: (payload) => parseOrThrow(withdrawCancelCommand, payload, 'payload'),
  async handle(tx, { payload, actor, commandId }) {
    const order = await openPartyOrder(tx, payload.order_id, actor, { operation: 'withdraw a cancellation' });
    const next = nextOrderState(order, { type: 'WITHDRAW', by: order.role });
    const { shipmentId, at } = shipmentFacts(order);
    await setOrderState(tx, { orderId: order.id, ...next });
    await appendOrderEvent(tx, {
      orderId: order.id,
      kind: 'cancel_withdrawn',
      shipmentId,
      from: at,
      to: at,
      actor: { brokerageId: actor.brokerageId, userId: actor.userId, role: order.role },
      commandId,
    });
    const completed = await applyHeldScans(tx, { id: order.id, snapshot: next.snapshot, clockTime: order.clockTime }, order.shipment);
    return {
      status: 200,
      body: await orderAnswerOf(tx, order.id, actor),
      ...(completed && order.hasDeadline ? { timersOf: order.id } : {}),
    };
  },
});
