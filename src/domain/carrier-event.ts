import type { CarrierUpdateCommand } from '@fulfil/contract';
import type { SqlTx } from '../db/client.ts';
import type { ShipmentRow } from '../db/ops/shipment-rows.ts';
import { appendOrderEvent } from '../db/sql/append-order-event.ts';
import type { LockedOrder } from '../db/sql/lock-order.ts';
import { setEstimate, takeCarrierEvent } from '../db/sql/mailed-shipment.ts';
import { carrierScanTime } from './scan-times.ts';
import { numberKey } from './tracking-numbers.ts';
import { applyTracking } from './tracking-moves.ts';

/** How a carrier event opens its shipment: as the order's seller (its lock), during a proposed cancellation too (D-152). */
export const CARRIER_OPENING = {
  role: 'seller',
  operation: 'record carrier scans',
  followOtherPartysPickup: false,
  replaces: false,
  duringCancelProposal: true,
} as const;

export interface CarrierEventOutcome {
  shipment: ShipmentRow;
  /** Scans stored now (the others were there already). */
  recorded: number;
  /** The order was completed by one of the scans. */
  completed: boolean;
}

/**
 * One carrier event about the order's live mailed shipment, under the order's lock (the caller's):
 * its event id taken once (a retry changes nothing), its scans recorded once each in the order
 * they happened and applied as the carrier's word, and a new estimate after the deadline told as
 * `at_risk`. A signed EasyPost webhook's command (workers/shipment-carrier-update.ts) and the
 * carrier simulator's scans (src/sandbox/carrier-simulator.ts) both come here. `now`: the time
 * the event comes, against which its scans' times are judged (D-152).
 */
export async function applyCarrierEvent(
  tx: SqlTx,
  order: LockedOrder,
  opening: ShipmentRow,
  payload: CarrierUpdateCommand,
  now: Date,
): Promise<CarrierEventOutcome> {
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
  if (!first) return { shipment, recorded, completed };
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
  // shipment.at_risk: the carrier now expects the envelope after the order's deadline (it did not before).
  if (!revoked && payload.estimated_delivery_at && !['delivered', 'canceled', 'returned'].includes(shipment.state)) {
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
  return { shipment, recorded, completed };
}
