import { applyShipmentEvent, type PersistedShipment } from '../../machines/index.ts';
import type { EventKind, TrackingStatus } from '@fulfil/contract';
import type { SqlTx } from '../db/client.ts';
import type { LockedOrder } from '../db/sql/lock-order.ts';
import { moveMailedShipment, recordTrackingEvent, type MailedMove } from '../db/sql/mailed-shipment.ts';
import type { ShipmentRow } from '../db/ops/shipment-rows.ts';
import type { TrackingSource } from '../db/schema/tracking.ts';
import { nextOrderState } from './order-transition.ts';

/** The event kind each tracking status is told as (the one event-kind table). */
export const EVENT_KIND_OF_STATUS: Readonly<Record<TrackingStatus, EventKind>> = {
  in_transit: 'in_transit',
  out_for_delivery: 'out_for_delivery',
  delivered: 'delivered',
  exception: 'delivery_exception',
  returned: 'returned',
};

/** A shipment no tracking event changes any more: the scans are still recorded, without an event. */
const SETTLED = new Set(['delivered', 'canceled', 'returned']);

/** Who tells the event: the seller's command, or the carrier (a system event). */
export type EventWho = MailedMove['event'] extends infer E ? (E extends unknown ? Omit<E, 'kind' | 'details'> : never) : never;

export interface TrackingInput {
  source: TrackingSource;
  status: TrackingStatus;
  occurredAt: string;
  location: string | null;
  description: string | null;
  carrierEventId: string | null;
}

export interface TrackingOutcome {
  shipment: ShipmentRow;
  /** Stored now (false: the same scan was already there). */
  recorded: boolean;
  sellerClaim: boolean;
  /** The order was completed by this scan. */
  completed: boolean;
}

/**
 * One tracking event, under the order's lock: recorded once, then told as an event and applied to
 * the shipment machine. The carrier's scans decide a carrier-tracked shipment; the seller's
 * `delivered` on one is recorded as the seller's claim and moves nothing (D-112). A scan on a
 * settled shipment (delivered, returned, canceled) is recorded without effect: EasyPost resends
 * and reorders, and a late `in_transit` never moves a delivered envelope back.
 */
export async function applyTracking(
  tx: SqlTx,
  order: LockedOrder,
  shipment: ShipmentRow,
  t: TrackingInput,
  event: EventWho,
  extra: Partial<Pick<ShipmentRow, 'estimatedDeliveryAt' | 'carrierTrackerId'>> = {},
): Promise<TrackingOutcome> {
  // Carrier-tracked: the label was bought through the carrier account, whose tracker will scan it.
  const sellerClaim = t.source === 'seller' && shipment.carrierLabelId !== null && t.status === 'delivered';
  const recorded = await recordTrackingEvent(tx, {
    orderId: order.id,
    shipmentId: shipment.id,
    source: t.source,
    status: t.status,
    occurredAt: t.occurredAt,
    location: t.location,
    description: t.description,
    sellerClaim,
    carrierEventId: t.carrierEventId,
  });
  const unchanged = { shipment, recorded, sellerClaim, completed: false };
  if (!recorded || sellerClaim || SETTLED.has(shipment.state)) return unchanged;
  const result = applyShipmentEvent(shipment.snapshot as PersistedShipment, { type: 'SCAN', status: t.status });
  const next: ShipmentRow = result.ok
    ? { ...shipment, ...extra, state: result.view.state, snapshot: result.snapshot }
    : { ...shipment, ...extra };
  const delivers = result.ok && result.view.state === 'delivered';
  const orderCompletion = delivers ? nextOrderState(order, { type: 'COMPLETE' }) : null;
  const scan = { status: t.status, occurred_at: t.occurredAt, location: t.location, description: t.description, source: t.source };
  await moveMailedShipment(tx, {
    old: shipment,
    next: delivers ? { ...next, deliveredAt: new Date() } : next,
    orderCompletion,
    event: {
      ...event,
      kind: EVENT_KIND_OF_STATUS[t.status],
      details: { scan, tracking_number: shipment.trackingNumber },
    } as MailedMove['event'],
  });
  return { shipment: next, recorded, sellerClaim, completed: delivers };
}
