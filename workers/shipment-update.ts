import { applyShipmentEvent, type PersistedShipment, type ShipmentEvent } from '../machines/index.ts';
import { appendShipmentEvent } from '../src/db/ops/append-shipment-event.ts';
import { insertAddress, insertEmailAddress, insertPhoneNumber, loadContacts } from '../src/db/ops/contacts.ts';
import { replaceShipment, type NewShipment, type ShipmentRow } from '../src/db/ops/shipment-rows.ts';
import type { Tx } from '../src/db/client.ts';
import type { LockedOrder } from '../src/db/ops/lock-order.ts';
import { transitionOrder } from '../src/domain/order-transition.ts';
import { openShipment } from '../src/domain/shipment-access.ts';
import { buyerPickupJson, mobileTransferJson, sellerPickupJson } from '../src/domain/shipment-response.ts';
import { updateCommand, type UpdateCommand } from '../src/domain/shipment-update-input.ts';
import { parseOrThrow } from '../src/domain/validation.ts';
import { InvalidTransition } from '../src/errors.ts';
import { defineHandler } from './handler.ts';

const OPERATION = {
  mobile_transfer: { role: 'seller', verb: 'change the delivery method', event: 'MOBILE_TRANSFER' },
  seller_pickup: { role: 'seller', verb: "give the seller's local pickup details", event: 'SELLER_PICKUP' },
  buyer_pickup: { role: 'buyer', verb: "give the buyer's local pickup details", event: 'BUYER_PICKUP' },
} as const;

function machineEvent(p: UpdateCommand): ShipmentEvent {
  return p.operation === 'mobile_transfer'
    ? { type: 'MOBILE_TRANSFER', transferType: p.mobile_transfer_type }
    : { type: OPERATION[p.operation].event };
}

/** Everything already known carries over to the replacement; the operation overlays its part. */
async function replacementValues(tx: Tx, old: ShipmentRow, order: LockedOrder, p: UpdateCommand): Promise<Partial<NewShipment>> {
  switch (p.operation) {
    case 'mobile_transfer': {
      const needsRecipient = p.mobile_transfer_type === 'XMobile' || p.mobile_transfer_type === 'XSeats';
      const emailAddressId = old.emailAddressId ?? (needsRecipient ? (await insertEmailAddress(tx, order.recipientEmail)).id : null);
      return {
        type: p.mobile_transfer_type,
        transferSource: p.transfer_source ?? old.transferSource,
        shipToName: old.shipToName ?? (needsRecipient ? order.recipientName : null),
        emailAddressId,
      };
    }
    case 'seller_pickup':
      return {
        shipFromName: p.ship_from_name,
        shipFromAddressId: (await insertAddress(tx, p.ship_from_address_attributes)).id,
        shipFromPhoneNumberId: (await insertPhoneNumber(tx, p.ship_from_phone_number_attributes)).id,
        pickupTimeRange: p.pickup_time_range,
        pickupInstructions: p.pickup_instructions ?? null,
      };
    case 'buyer_pickup':
      return {
        shipToName: p.ship_to_name,
        phoneNumberId: (await insertPhoneNumber(tx, p.phone_number_attributes)).id,
        notes: p.notes ?? null,
      };
  }
}

/**
 * PUT /v9/shipments/:id: every success replaces the shipment (rule U1), local pickup included;
 * the second party's pickup details complete the join and deliver it, completing the order.
 */
export default defineHandler({
  name: 'shipment.update',
  parse: (payload) => parseOrThrow(updateCommand, payload, 'payload'),
  async handle(tx, { payload, actor, commandId }) {
    const op = OPERATION[payload.operation];
    const { order, shipment, role } = await openShipment(tx, payload.shipment_id, actor, {
      role: op.role,
      operation: op.verb,
      followOtherPartysPickup: payload.operation !== 'mobile_transfer',
    });
    const result = applyShipmentEvent(shipment.snapshot as PersistedShipment, machineEvent(payload));
    if (!result.ok) throw new InvalidTransition(result.reason);

    const delivered = result.view.state === 'delivered';
    const { id: _id, replacedBy: _r, replacedAt: _ra, createdAt: _c, ...carried } = shipment;
    const replacement = await replaceShipment(tx, shipment, {
      ...carried,
      ...(await replacementValues(tx, shipment, order, payload)),
      type: result.view.type,
      state: result.view.state,
      snapshot: result.snapshot,
      deliveredAt: delivered ? new Date() : null,
    });
    if (delivered) await transitionOrder(tx, order, { type: 'COMPLETE' }, { completedAt: new Date() });
    await appendShipmentEvent(tx, {
      orderId: order.id,
      kind: payload.operation === 'mobile_transfer' ? 'updated' : delivered ? 'delivered' : 'pickup_details',
      shipmentId: shipment.id,
      newShipmentId: replacement.id,
      from: { type: shipment.type, state: shipment.state },
      to: { type: replacement.type, state: replacement.state },
      actor: { brokerageId: actor.brokerageId, userId: actor.userId, role },
      commandId,
    });
    const contacts = await loadContacts(tx, replacement);
    const body =
      payload.operation === 'mobile_transfer'
        ? mobileTransferJson(replacement, contacts)
        : payload.operation === 'seller_pickup'
          ? sellerPickupJson(replacement, contacts)
          : buyerPickupJson(replacement, contacts);
    return { status: 200, body };
  },
});
