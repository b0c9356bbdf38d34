import { withMode } from '../src/read/answer-mode.ts';
import { orderNow } from '../src/db/sql/lock-order.ts';
import { InvalidTransition, isMailedType, parseOrThrow, trackingEventCommand } from '@fulfil/contract';
import { addressRow } from '../src/db/sql/mailed-shipment.ts';
import { storeResult } from '../src/db/sql/store-result.ts';
import { trackingEventsOf, trackingEventJson } from '../src/read/tracking-events.ts';
import { openShipment, sendShipmentReads } from '../src/domain/shipment-access.ts';
import { mailedShipmentJson } from '../src/domain/shipment-response.ts';
import { applyTracking, carrierTracked } from '../src/domain/tracking-moves.ts';
import { openReceiptWindow } from '../src/domain/receipt-window.ts';
import { assertSellerScanTime } from '../src/domain/scan-times.ts';
import { defineHandler } from './handler.ts';

const OPENING = { role: 'seller', operation: 'add a tracking event', followOtherPartysPickup: false, replaces: false } as const;

/**
 * POST /v9/shipments/:id/tracking_events: the seller reports a scan, for a carrier without an
 * account here. It moves the shipment as a carrier's would, except on a shipment the carrier
 * tracks, where every event of the seller is recorded as its claim and moves nothing (D-154).
 * A time the envelope cannot have been scanned at is 400 (D-152); `delivered` on a shipment never
 * shipped is 422.
 */
export default defineHandler({
  name: 'shipment.tracking_event',
  parse: (payload) => parseOrThrow(trackingEventCommand, payload, 'payload'),
  open: (tx, { payload, actor }) => sendShipmentReads(tx, payload.shipment_id, actor, OPENING),
  async handle(tx, { payload, actor, commandId }, ctx, opened) {
    const { order, shipment, role } = await openShipment(tx, payload.shipment_id, actor, OPENING, opened);
    if (!isMailedType(shipment.type)) {
      throw new InvalidTransition(
        `shipment ${shipment.id} is ${shipment.type}; only a mailed shipment (FedEx, UPS, USPS, ProvidedAirbill) has tracking events`,
      );
    }
    if (shipment.trackingNumber === null) {
      throw new InvalidTransition(
        `shipment ${shipment.id} has no tracking number yet: set it with PUT /v9/shipments/${shipment.id}/tracking first`,
      );
    }
    const occurredAt = assertSellerScanTime(payload.occurred_at, orderNow(order), shipment.createdAt);
    if (payload.status === 'delivered' && shipment.state === 'pending') {
      throw new InvalidTransition(
        `shipment ${shipment.id} is pending: it was never shipped, so it cannot be delivered; ship it first (PUT /v9/shipments/${shipment.id}/complete)`,
      );
    }
    // Without a carrier account the seller's `delivered` on a shipped envelope waits for the buyer (D-156).
    const window = ctx.deadlines.receiptWindowMs;
    const awaitsBuyer =
      payload.status === 'delivered' &&
      window !== undefined &&
      !carrierTracked(shipment) &&
      (shipment.state === 'in_transit' || shipment.state === 'exception');
    const outcome = await applyTracking(
      tx,
      order,
      shipment,
      {
        source: 'seller',
        status: payload.status,
        occurredAt,
        location: payload.location ?? null,
        description: payload.description ?? null,
        carrierEventId: null,
        claim: awaitsBuyer,
      },
      { actor: { brokerageId: actor.brokerageId, userId: actor.userId, role }, commandId },
    );
    const events = await trackingEventsOf(tx, shipment.id);
    const mine = events.find(
      (e) => e.source === 'seller' && e.status === payload.status && e.occurredAt.getTime() === Date.parse(occurredAt),
    );
    const confirmBy = awaitsBuyer ? await openReceiptWindow(tx, order.id, new Date(orderNow(order).getTime() + window)) : null;
    const body = withMode(
      {
        ...mailedShipmentJson(outcome.shipment, { shipToAddress: await addressRow(tx, shipment.shipToAddressId) }),
        tracking_event: trackingEventJson(mine!),
        recorded: outcome.recorded,
        ...(confirmBy ? { confirm_receipt_by: confirmBy.toISOString() } : {}),
      },
      order,
    );
    await storeResult(tx, commandId, 200, body);
    const timers = confirmBy !== null || (outcome.completed && order.hasDeadline);
    return { status: 200, body, stored: true, ...(timers ? { timersOf: order.id } : {}) };
  },
});
