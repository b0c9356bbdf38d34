import { orderNow } from '../src/db/sql/lock-order.ts';
import { OPEN_ORDER_STATES } from '../machines/index.ts';
import { appendOrderEvent } from '../src/db/sql/append-order-event.ts';
import { setOrderDeadline } from '../src/db/sql/order-writes.ts';
import { assertNotBeforeToday, deliverByFor, dueSoonAt } from '../src/domain/deadline-policy.ts';
import { openPartyOrder, orderAnswerOf, shipmentFacts } from '../src/domain/order-commands.ts';
import { orderUpdateCommand, parseOrThrow, InvalidTransition } from '@fulfil/contract';
import { defineHandler } from './handler.ts';

/**
 * PUT /v9/orders/:id {in_hand_on}: the seller moves the in-hand date of an open order. The deadline
 * moves with it, by the policy (an explicit deliver_by the order came with gives way to it), and
 * so do both timers; `order.in_hand_updated` tells both parties.
 */
export default defineHandler({
  name: 'order.update',
  parse: (payload) => parseOrThrow(orderUpdateCommand, payload, 'payload'),
  async handle(tx, { payload, actor, commandId }, ctx) {
    const order = await openPartyOrder(tx, payload.order_id, actor, { only: 'seller', operation: "change an order's in-hand date" });
    if (!(OPEN_ORDER_STATES as readonly string[]).includes(order.state)) {
      throw new InvalidTransition(`order is ${order.state}; its in-hand date can no longer change`);
    }
    assertNotBeforeToday(payload.in_hand_on, orderNow(order), ctx.deadlines);
    const deliverBy = deliverByFor(payload.in_hand_on, order.eventStartsAt, ctx.deadlines);
    const dueSoon = dueSoonAt(deliverBy, ctx.deadlines);
    await setOrderDeadline(tx, { orderId: order.id, inHandOn: payload.in_hand_on, deliverBy, dueSoonAt: dueSoon });
    const { shipmentId, at } = shipmentFacts(order);
    await appendOrderEvent(tx, {
      orderId: order.id,
      kind: 'in_hand_updated',
      shipmentId,
      from: at,
      to: at,
      details: {
        in_hand_on: payload.in_hand_on,
        deliver_by: deliverBy.toISOString(),
        previous_in_hand_on: order.inHandOn,
        previous_deliver_by: order.deliverBy?.toISOString() ?? null,
      },
      actor: { brokerageId: actor.brokerageId, userId: actor.userId, role: 'seller' },
      commandId,
    });
    return { status: 200, body: await orderAnswerOf(tx, order.id, actor), timersOf: order.id };
  },
});
