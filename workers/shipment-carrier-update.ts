import { orderNow } from '../src/db/sql/lock-order.ts';
import { carrierUpdateCommand, parseOrThrow } from '@fulfil/contract';
import { appendOrderEvent } from '../src/db/sql/append-order-event.ts';
import { setEstimate, takeCarrierEvent } from '../src/db/sql/mailed-shipment.ts';
import { storeResult } from '../src/db/sql/store-result.ts';
import { openShipment, sendShipmentReads } from '../src/domain/shipment-access.ts';
import { applyTracking } from '../src/domain/tracking-moves.ts';
import { carrierScanTime } from '../src/domain/scan-times.ts';
import { numberKey } from '../src/domain/tracking-numbers.ts';
import { defineHandler } from './handler.ts';

const OPENING = {
  role: 'seller',
  operation: 'record carrier scans',
  followOtherPartysPickup: false,
  replaces: false,
  duringCancelProposal: true,
} as const;

/**
 * A verified carrier webhook (POST /carriers/easypost/events): its scans recorded once each, in
 * the order they happened, each applied to the shipment as the carrier's word. The event id is
 * taken once: EasyPost retries, and a retry changes nothing. The order's seller is the command's
 * actor (its lock is the seller's); the events are the system's (`carrier_scan`). Nothing refuses
 * a scan (D-152): while a cancellation is proposed it is held, applied once withdrawn; a time the
 * envelope cannot have been scanned at is replaced by the time it came, flagged.
 */
export default defineHandler({
  name: 'shipment.carrier_update',
  parse: (payload) => parseOrThrow(carrierUpdateCommand, payload, 'payload'),
  open: (tx, { payload, actor }) => sendShipmentReads(tx, payload.shipment_id, actor, OPENING),
  async handle(tx, { payload, actor, commandId }, _ctx, opened) {
    const { order, shipment: opening } = await openShipment(tx, payload.shipment_id, actor, OPENING, opened);
    const first = await takeCarrierEvent(tx, {
      provider: payload.provider,
      eventId: payload.event_id,
      trackingCode: payload.tracking_code,
      outcome: 'recorded',
    });
    // The envelope this event is about is the shipment's own unless a reissue replaced it: neither
    // its tracker nor its number is the shipment's now (D-155). Decided here, under the order's lock.
    const ownTracker = payload.tracker_id !== null && payload.tracker_id === opening.carrierTrackerId;
    const ownNumber = opening.trackingNumber !== null && numberKey(opening.trackingNumber).key === numberKey(payload.tracking_code).key;
    const revoked = !ownTracker && !ownNumber;
    let shipment = opening;
    let recorded = 0;
    let completed = false;
    if (first) {
      const now = orderNow(order);
      const scans = payload.scans
        .map((scan) => ({ scan, time: carrierScanTime(scan.occurred_at, now, opening.createdAt) }))
        .sort((a, b) => Date.parse(a.time.occurredAt) - Date.parse(b.time.occurredAt));
      const extra = {
        ...(payload.estimated_delivery_at ? { estimatedDeliveryAt: new Date(payload.estimated_delivery_at) } : {}),
        ...(payload.tracker_id ? { carrierTrackerId: payload.tracker_id } : {}),
      };
      for (const { scan, time } of scans) {
        const outcome = await applyTracking(
          tx,
          order,
          shipment,
          {
            source: 'carrier',
            status: scan.status,
            occurredAt: time.occurredAt,
            location: scan.location,
            description: scan.description,
            carrierEventId: payload.event_id,
            timeFlag: time.timeFlag,
            reportedTime: time.reportedTime,
            revoked,
          },
          { actor: { type: 'system', reason: 'carrier_scan' } },
          extra,
        );
        shipment = outcome.shipment;
        if (outcome.recorded) recorded++;
        completed ||= outcome.completed;
      }
    }
    // shipment.at_risk: the carrier now expects the envelope after the order's deadline (it did not before).
    if (first && !revoked && payload.estimated_delivery_at && !['delivered', 'canceled', 'returned'].includes(shipment.state)) {
      const estimate = new Date(payload.estimated_delivery_at);
      const before = opening.estimatedDeliveryAt;
      const { deliverBy } = await setEstimate(tx, shipment.id, estimate);
      const late = (d: Date | null) => d !== null && deliverBy !== null && d.getTime() > deliverBy.getTime();
      if (late(estimate) && !late(before)) {
        await appendOrderEvent(tx, {
          orderId: order.id,
          kind: 'at_risk',
          shipmentId: shipment.id,
          from: { type: shipment.type, state: shipment.state },
          to: { type: shipment.type, state: shipment.state },
          details: {
            estimated_delivery_at: estimate.toISOString(),
            deliver_by: deliverBy!.toISOString(),
            tracking_number: shipment.trackingNumber,
          },
          actor: { type: 'system', reason: 'carrier_estimate' },
        });
      }
    }
    const body = { recorded, state: shipment.state };
    await storeResult(tx, commandId, 200, body);
    return { status: 200, body, stored: true, ...(completed && order.hasDeadline ? { timersOf: order.id } : {}) };
  },
});
