import { withMode } from '../src/read/answer-mode.ts';
import { orderNow } from '../src/db/sql/lock-order.ts';
import { applyShipmentEvent, shipmentView, type PersistedShipment } from '../machines/index.ts';
import { completeShipment } from '../src/db/sql/complete-shipment.ts';
import { completeCommand, isMailedType, parseOrThrow, InvalidParams, InvalidTransition } from '@fulfil/contract';
import { nextOrderState } from '../src/domain/order-transition.ts';
import { openShipment, sendShipmentReads } from '../src/domain/shipment-access.ts';
import { completedShipmentJson } from '../src/domain/shipment-response.ts';
import { defineHandler } from './handler.ts';
import { completionDetails } from '../src/domain/completion-files.ts';
import { shipMailed } from '../src/domain/ship-mailed.ts';

const OPENING = {
  role: 'seller',
  operation: 'complete a shipment',
  followOtherPartysPickup: false,
  replaces: false,
  delivers: true,
} as const;

/**
 * PUT /v9/shipments/:id/complete: the seller has transferred the tickets. The shipment keeps
 * its id (complete is not an update) and becomes delivered; the order is completed.
 */
export default defineHandler({
  name: 'shipment.complete',
  parse: (payload) => parseOrThrow(completeCommand, payload, 'payload'),
  open: (tx, { payload, actor }) => sendShipmentReads(tx, payload.shipment_id, actor, OPENING),
  async handle(tx, { payload, actor, commandId }, ctx, opened) {
    const { order, shipment, role } = await openShipment(tx, payload.shipment_id, actor, OPENING, opened);
    const snapshot = shipment.snapshot as PersistedShipment;
    if (isMailedType(shipment.type))
      return shipMailed(tx, { order, shipment, role, payload, actor, commandId, carrierStepMs: ctx.deadlines.carrierStepMs });
    const hasLink = payload.x_mobile_link !== undefined;
    // State first (422), then whether the body fits the type (400): a TBD shipment is refused
    // for what it is, whatever the body says.
    if (shipmentView(snapshot).stateValue !== 'pending') {
      const refused = applyShipmentEvent(snapshot, { type: 'COMPLETE', hasLink });
      throw new InvalidTransition(refused.ok ? `shipment ${shipment.id} cannot be completed` : refused.reason);
    }
    // Every rule of the type and the order at once: one answer names every problem.
    const problems: { field: string; message: string }[] = [];
    if (shipment.type === 'XMobileLink' && !hasLink) {
      problems.push({ field: 'x_mobile_link', message: 'x_mobile_link: required to complete an XMobileLink shipment' });
    }
    if ((shipment.type === 'XSeats' || shipment.type === 'Eticket') && payload.x_mobile_link !== undefined) {
      // docs/API.md §Shipments: these take no link (barcodes and the platform are welcome).
      problems.push({ field: 'x_mobile_link', message: `x_mobile_link: ${anOrA(shipment.type)} shipment is completed without a link` });
    }
    if (payload.tickets && payload.tickets.length !== order.quantity) {
      const message = `tickets: ${payload.tickets.length} given for an order of ${order.quantity}; give one per ticket`;
      problems.push({ field: 'tickets', message });
    }
    if (problems.length > 0) throw InvalidParams.of(problems);
    const result = applyShipmentEvent(snapshot, { type: 'COMPLETE', hasLink });
    if (!result.ok) throw new InvalidTransition(result.reason);
    // An Eticket shipment is delivered by its files: none uploaded, nothing to complete (422).
    const details = await completionDetails(tx, shipment, payload);
    const orderNext = nextOrderState(order, { type: 'COMPLETE' });

    const completed = {
      ...shipment,
      state: result.view.state,
      snapshot: result.snapshot,
      xMobileLink: payload.x_mobile_link ?? null,
      transferSource: payload.transfer_source ?? shipment.transferSource,
      deliveredAt: orderNow(order),
    };
    const body = withMode({ ...completedShipmentJson(completed), ...(payload.tickets ? { tickets: payload.tickets } : {}) }, order);
    await completeShipment(tx, {
      old: shipment,
      completed,
      order: { id: order.id, ...orderNext },
      event: { actor: { brokerageId: actor.brokerageId, userId: actor.userId, role }, commandId, ...(details ? { details } : {}) },
      answer: { commandId, status: 200, body },
    });
    // The order is completed: its deadline timers go (they would find it finished and do nothing).
    // Only an order with a deadline has timers to remove: most completions cost Redis nothing more.
    return { status: 200, body, stored: true, ...(order.hasDeadline ? { timersOf: order.id } : {}) };
  },
});

/** "an Eticket", "a XSeats"? No: the article as the word is said ("an XSeats", "an Eticket", "a TBD"). */
function anOrA(type: string): string {
  return /^[AEIOUX]/i.test(type) ? `an ${type}` : `a ${type}`;
}
