import { InvalidTransition, isMailedType, parseOrThrow, confirmReceiptCommand } from '@fulfil/contract';
import { liveShipment } from '../src/db/sql/live-shipment.ts';
import { openPartyOrder, orderAnswerOf } from '../src/domain/order-commands.ts';
import { completeOnReceipt } from '../src/domain/receipt-window.ts';
import { defineHandler } from './handler.ts';

/**
 * POST /v9/orders/:id/confirm_receipt: the buyer says the mailed tickets arrived (D-156). The
 * shipped envelope is delivered and the order completed, `completed_by: "buyer_confirmed"`; a
 * confirmation window the seller's `delivered` opened closes.
 */
export default defineHandler({
  name: 'order.confirm_receipt',
  parse: (payload) => parseOrThrow(confirmReceiptCommand, payload, 'payload'),
  async handle(tx, { payload, actor, commandId }) {
    const order = await openPartyOrder(tx, payload.order_id, actor, { only: 'buyer', operation: 'confirm receipt' });
    const s = order.shipment;
    if (order.state !== 'accepted' || !s || !isMailedType(s.type) || (s.state !== 'in_transit' && s.state !== 'exception')) {
      const what = s ? `its shipment is ${s.type} ${s.state}` : 'it has no shipment';
      throw new InvalidTransition(
        `order ${order.id} is ${order.state} and ${what}: receipt is confirmed for an accepted order whose mailed envelope is shipped (in_transit or exception)`,
      );
    }
    const live = await liveShipment(tx, s.id, { drawNextId: false });
    await completeOnReceipt(tx, order, live!.shipment, 'buyer_confirmed', {
      actor: { brokerageId: actor.brokerageId, userId: actor.userId, role: 'buyer' },
      commandId,
    });
    return { status: 200, body: await orderAnswerOf(tx, order.id, actor), timersOf: order.id };
  },
});
