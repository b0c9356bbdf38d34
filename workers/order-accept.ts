import { withMode } from '../src/read/answer-mode.ts';
import { initialShipmentSnapshot, shipmentView } from '../machines/index.ts';
import { orderRole } from '../src/auth/roles.ts';
import { findOrder } from '../src/db/ops/lock-order.ts';
import { shipmentRowOf } from '../src/db/ops/shipment-rows.ts';
import { acceptOrder } from '../src/db/sql/accept-order.ts';
import { insertEmailAddress } from '../src/db/sql/insert-contacts.ts';
import { lockOrderForAccept } from '../src/db/sql/lock-order.ts';
import { sentAhead } from '../src/db/sent-ahead.ts';
import { acceptCommand, parseOrThrow, Forbidden, InvalidParams, NotFound } from '@fulfil/contract';
import { nextOrderState } from '../src/domain/order-transition.ts';
import { acceptedShipmentJson } from '../src/domain/shipment-response.ts';
import { defineHandler } from './handler.ts';

/** The shipment an accepted order starts with, by its delivery method (docs/API.md §Orders). */
const FIRST_SHIPMENT_TYPE = { flash: 'XSeats', local_pickup: 'LocalPickup', tbd: 'TBD' } as const;

/** POST /v9/orders/:id/accept: the seller accepts; the order gets its first shipment. */
export default defineHandler({
  name: 'order.accept',
  parse: (payload) => parseOrThrow(acceptCommand, payload, 'payload'),
  open: (tx, { payload, actor }) => sentAhead(lockOrderForAccept(tx, payload.order_id, actor.brokerageId, payload.reviewer_id)),
  async handle(tx, { payload, actor, commandId }, _ctx, opened) {
    const order = await (opened ?? lockOrderForAccept(tx, payload.order_id, actor.brokerageId, payload.reviewer_id));
    if (!order) {
      // Not the seller's: tell a buyer (403) from a stranger or a missing order (404).
      const party = await findOrder(tx.db, payload.order_id);
      if (!party || orderRole(actor, party) === 'stranger') throw new NotFound(`order ${payload.order_id} not found`);
      throw new Forbidden('only the seller may accept an order');
    }
    // Both rules of the order at once: one answer names every problem.
    const problems = [
      ...(order.reviewerOk ? [] : [{ field: 'reviewer_id', message: 'reviewer_id: must be a user of your brokerage' }]),
      ...(payload.seats && payload.seats.length !== order.quantity
        ? [{ field: 'seats', message: `seats: must list ${order.quantity} seat ids, the order's quantity` }]
        : []),
    ];
    if (problems.length > 0) throw InvalidParams.of(problems);
    const next = nextOrderState(order, { type: 'ACCEPT' });

    const type = FIRST_SHIPMENT_TYPE[order.delivery];
    const snapshot = initialShipmentSnapshot({ type });
    const email = type === 'XSeats' ? await insertEmailAddress(tx, order.recipientEmail) : undefined;
    const shipment = shipmentRowOf(order.nextShipmentId, {
      orderId: order.id,
      type,
      state: shipmentView(snapshot).state,
      snapshot,
      shipToName: type === 'XSeats' ? order.recipientName : null,
      emailAddressId: email?.id ?? null,
    });
    const body = withMode(
      { id: order.id, oid: order.oid, state: next.state, shipments: [acceptedShipmentJson(shipment, { email })] },
      order,
    );
    await acceptOrder(tx, {
      order: { id: order.id, ...next, reviewerId: payload.reviewer_id, seats: payload.seats ?? null },
      shipment,
      event: { actor: { brokerageId: actor.brokerageId, userId: actor.userId, role: 'seller' }, commandId },
      answer: { commandId, status: 200, body },
    });
    // Armed in the same step as the accept (D-133): an order seeded a moment ago waits for no sweep.
    return { status: 200, body, stored: true, timersOf: order.id };
  },
});
