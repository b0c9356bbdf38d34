import { applyShipmentEvent, type PersistedShipment } from '../machines/index.ts';
import { appendOrderEvent } from '../src/db/sql/append-order-event.ts';
import { cancelLiveShipment, setOrderState } from '../src/db/sql/order-writes.ts';
import type { ShipmentBefore } from '../src/db/sql/shipment-version.ts';
import { openPartyOrder, orderAnswerOf, shipmentFacts } from '../src/domain/order-commands.ts';
import { nextOrderState } from '../src/domain/order-transition.ts';
import { cancelCommand, parseOrThrow, InvalidTransition } from '@fulfil/contract';
import { defineHandler } from './handler.ts';

/**
 * POST /v9/orders/:id/cancel by either party: on an accepted order it proposes (the order becomes
 * cancel_proposed and the other party is told); the other party's call confirms, and the order and
 * its live shipment become canceled. The proposer calling again is a 422 that says who must answer.
 */
export default defineHandler({
  name: 'order.cancel',
  parse: (payload) => parseOrThrow(cancelCommand, payload, 'payload'),
  async handle(tx, { payload, actor, commandId }) {
    const order = await openPartyOrder(tx, payload.order_id, actor, { operation: 'cancel an order' });
    const next = nextOrderState(order, { type: 'CANCEL', by: order.role });
    const confirmed = next.state === 'canceled';
    const { shipmentId, at } = shipmentFacts(order);
    let to = at;
    let shipmentBefore: ShipmentBefore = null;
    if (confirmed && order.shipment) {
      const result = applyShipmentEvent(order.shipment.snapshot as PersistedShipment, { type: 'CANCEL' });
      if (!result.ok) throw new InvalidTransition(result.reason);
      shipmentBefore = await cancelLiveShipment(tx, {
        orderId: order.id,
        shipmentId: order.shipment.id,
        ...result.view,
        snapshot: result.snapshot,
      });
      to = { type: result.view.type, state: result.view.state };
    }
    await setOrderState(tx, { orderId: order.id, ...next, closed: confirmed });
    await appendOrderEvent(
      tx,
      {
        orderId: order.id,
        kind: confirmed ? 'canceled' : 'cancel_proposed',
        shipmentId,
        from: at,
        to,
        details: { reason: payload.reason ?? null, notes: payload.notes ?? null, ...(confirmed ? {} : { proposed_by: order.role }) },
        actor: { brokerageId: actor.brokerageId, userId: actor.userId, role: order.role },
        commandId,
      },
      shipmentBefore,
    );
    return { status: 200, body: await orderAnswerOf(tx, order.id, actor), ...(confirmed ? { timersOf: order.id } : {}) };
  },
});
