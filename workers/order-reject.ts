import { appendOrderEvent } from '../src/db/sql/append-order-event.ts';
import { setOrderState } from '../src/db/sql/order-writes.ts';
import { openPartyOrder, orderAnswerOf } from '../src/domain/order-commands.ts';
import { nextOrderState } from '../src/domain/order-transition.ts';
import { parseOrThrow, rejectCommand } from '@fulfil/contract';
import { defineHandler } from './handler.ts';

/** POST /v9/orders/:id/reject: the seller refuses a pending order; it ends rejected, with no shipment. */
export default defineHandler({
  name: 'order.reject',
  parse: (payload) => parseOrThrow(rejectCommand, payload, 'payload'),
  async handle(tx, { payload, actor, commandId }) {
    const order = await openPartyOrder(tx, payload.order_id, actor, {
      only: 'seller',
      operation: 'reject an order',
      reviewerId: payload.reviewer_id,
    });
    const next = nextOrderState(order, { type: 'REJECT' });
    const notes = payload.rejection_notes ?? null;
    await setOrderState(tx, { orderId: order.id, ...next, closed: true, rejection: { reason: payload.reason, notes } });
    await appendOrderEvent(tx, {
      orderId: order.id,
      kind: 'rejected',
      shipmentId: null,
      from: null,
      to: null,
      details: { reason: payload.reason, rejection_notes: notes, reviewer_id: payload.reviewer_id },
      actor: { brokerageId: actor.brokerageId, userId: actor.userId, role: 'seller' },
      commandId,
    });
    return { status: 200, body: await orderAnswerOf(tx, order.id, actor), timersOf: order.id };
  },
});
