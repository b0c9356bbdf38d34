import { withMode } from '../src/read/answer-mode.ts';
import { InvalidParams, InvalidTransition, isMailedType, parseOrThrow, trackingNumberCommand } from '@fulfil/contract';
import { addressRow, moveMailedShipment } from '../src/db/sql/mailed-shipment.ts';
import { storeResult } from '../src/db/sql/store-result.ts';
import { claimTrackingNumber } from '../src/domain/tracking-claims.ts';
import { openShipment, sendShipmentReads } from '../src/domain/shipment-access.ts';
import { mailedShipmentJson } from '../src/domain/shipment-response.ts';
import { assertTrackingFits } from '../src/domain/tracking-numbers.ts';
import { defineHandler } from './handler.ts';

const OPENING = { role: 'seller', operation: 'set a tracking number', followOtherPartysPickup: false, replaces: false } as const;

/**
 * PUT /v9/shipments/:id/tracking: the seller tells the envelope's tracking number (a label bought
 * elsewhere). It must be one of the shipment's carrier (400 naming the carrier it looks like). The
 * same number again changes nothing; a new one replaces it while the shipment is pending.
 */
export default defineHandler({
  name: 'shipment.tracking_number',
  parse: (payload) => parseOrThrow(trackingNumberCommand, payload, 'payload'),
  open: (tx, { payload, actor }) => sendShipmentReads(tx, payload.shipment_id, actor, OPENING),
  async handle(tx, { payload, actor, commandId }, _ctx, opened) {
    const { order, shipment, role } = await openShipment(tx, payload.shipment_id, actor, OPENING, opened);
    const type = shipment.type;
    if (!isMailedType(type))
      throw new InvalidTransition(
        `shipment ${shipment.id} is ${type}; only a mailed shipment (FedEx, UPS, USPS, ProvidedAirbill) has a tracking number`,
      );
    assertTrackingFits(type, payload.tracking_number, { livemode: order.livemode });
    const contacts = { shipToAddress: await addressRow(tx, shipment.shipToAddressId) };
    if (shipment.trackingNumber === payload.tracking_number) {
      const body = withMode(mailedShipmentJson(shipment, contacts), order);
      await storeResult(tx, commandId, 200, body);
      return { status: 200, body, stored: true };
    }
    if (shipment.state !== 'pending') {
      throw new InvalidTransition(
        `shipment ${shipment.id} is ${shipment.state}: its tracking number ${shipment.trackingNumber ?? ''} can no longer change`,
      );
    }
    if (shipment.carrierLabelId !== null) {
      throw new InvalidParams(
        `tracking_number: the label bought for shipment ${shipment.id} sets its tracking number (${shipment.trackingNumber})`,
        'tracking_number',
      );
    }
    await claimTrackingNumber(tx, {
      orderId: order.id,
      shipmentId: shipment.id,
      number: payload.tracking_number,
      trackerId: payload.tracker_id ?? null,
      livemode: order.livemode,
    });
    const next = { ...shipment, trackingNumber: payload.tracking_number, carrierTrackerId: payload.tracker_id ?? null };
    const body = withMode(mailedShipmentJson(next, contacts), order);
    await moveMailedShipment(tx, {
      old: shipment,
      next,
      orderCompletion: null,
      event: {
        kind: 'airbill_created',
        actor: { brokerageId: actor.brokerageId, userId: actor.userId, role },
        commandId,
        details: { tracking_number: payload.tracking_number, airbill: null },
      },
      answer: { commandId, status: 200, body },
    });
    return { status: 200, body, stored: true };
  },
});
