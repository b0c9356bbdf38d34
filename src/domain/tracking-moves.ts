import { applyShipmentEvent, orderView, type PersistedOrder, type PersistedShipment } from '../../machines/index.ts';
import type { EventKind, TrackingStatus } from '@fulfil/contract';
import type { SqlTx } from '../db/client.ts';
import { orderNow, type LockedOrder } from '../db/sql/lock-order.ts';
import { moveMailedShipment, recordTrackingEvent, type MailedMove } from '../db/sql/mailed-shipment.ts';
import type { ShipmentRow } from '../db/ops/shipment-rows.ts';
import type { TimeFlag, TrackingSource } from '../db/schema/tracking.ts';
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
  /** The carrier's time was not used (occurredAt is when the scan came): why, and the time as given. */
  timeFlag?: TimeFlag | null;
  reportedTime?: string | null;
  /** A scan of the lost envelope a reissue replaced (its number revoked, D-155): stored, no effect. */
  revoked?: boolean;
  /** The seller's word that waits for the buyer (D-156): a claim, whoever tracks the envelope. */
  claim?: boolean;
}

export interface TrackingOutcome {
  shipment: ShipmentRow;
  /** Stored now (false: the same scan was already there). */
  recorded: boolean;
  sellerClaim: boolean;
  /** Stored while the order's cancellation is proposed: its effect waits (D-152). */
  held: boolean;
  /** The order was completed by this scan. */
  completed: boolean;
}

/**
 * The carrier tracks the envelope: its label was bought through the carrier account, or the
 * account registered a tracker for the number. Then the carrier's scans alone move it (D-154).
 */
export const carrierTracked = (s: Pick<ShipmentRow, 'carrierLabelId' | 'carrierTrackerId'>): boolean =>
  s.carrierLabelId !== null || s.carrierTrackerId !== null;

/**
 * One tracking event, under the order's lock: recorded once, then told as an event and applied to
 * the shipment machine. A seller's event on a carrier-tracked shipment is recorded as the seller's
 * claim and moves nothing (D-112, D-154). A carrier scan is stored whatever the order's state; while
 * a cancellation is proposed it is held, and applied when the proposal is withdrawn (D-152). A scan
 * on a settled shipment (delivered, returned, canceled) is recorded without effect: EasyPost
 * resends and reorders, and a late `in_transit` never moves a delivered envelope back.
 */
export async function applyTracking(
  tx: SqlTx,
  order: LockedOrder,
  shipment: ShipmentRow,
  t: TrackingInput,
  event: EventWho,
  extra: Partial<Pick<ShipmentRow, 'estimatedDeliveryAt' | 'carrierTrackerId'>> = {},
): Promise<TrackingOutcome> {
  const sellerClaim = t.source === 'seller' && (carrierTracked(shipment) || t.claim === true);
  const revoked = t.revoked === true;
  const held = !sellerClaim && !revoked && order.state === 'cancel_proposed';
  const told = sellerClaim || held || revoked ? null : await statusTold(tx, shipment.id, t.occurredAt);
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
    held,
    timeFlag: t.timeFlag ?? null,
    reportedTime: t.reportedTime ?? null,
    revoked,
  });
  const unchanged = { shipment, recorded, sellerClaim, held, completed: false };
  if (!recorded || sellerClaim || held || revoked) return unchanged;
  const moved = await applyScanEffect(tx, order, shipment, t, event, extra, {}, told);
  return { ...unchanged, ...moved };
}

/** The status of the latest scan at or before `at` that moved or was told (no claim, held or revoked one). */
async function statusTold(tx: SqlTx, shipmentId: number, at: string): Promise<string | null> {
  const [row] = await tx.rows<{ status: string }>(
    `select status from tracking_events where shipment_id = $1::bigint and occurred_at <= $2::timestamptz
       and not seller_claim and not held and not revoked
     order by occurred_at desc, id desc limit 1`,
    [shipmentId, at],
  );
  return row?.status ?? null;
}

/** What a recorded scan does to the shipment (and the order, when it delivers it); nothing on a settled one. */
export async function applyScanEffect(
  tx: SqlTx,
  order: Pick<LockedOrder, 'id' | 'snapshot' | 'clockTime'>,
  shipment: ShipmentRow,
  t: Pick<TrackingInput, 'source' | 'status' | 'occurredAt' | 'location' | 'description'>,
  event: EventWho,
  extra: Partial<Pick<ShipmentRow, 'estimatedDeliveryAt' | 'carrierTrackerId'>> = {},
  /** More details for the event (a completion's `completed_by`). */
  more: Record<string, unknown> = {},
  /** The status of the scan told before this one: the same again, moving nothing, is no new event. */
  previous: string | null = null,
): Promise<{ shipment: ShipmentRow; completed: boolean }> {
  if (SETTLED.has(shipment.state)) return { shipment, completed: false };
  const result = applyShipmentEvent(shipment.snapshot as PersistedShipment, { type: 'SCAN', status: t.status });
  // One event per status change, not one per scan: a second in_transit (another depot) is stored only.
  const moves = result.ok && result.view.state !== shipment.state;
  if (!moves && previous === t.status) return { shipment, completed: false };
  const next: ShipmentRow = result.ok
    ? { ...shipment, ...extra, state: result.view.state, snapshot: result.snapshot }
    : { ...shipment, ...extra };
  const delivers = result.ok && result.view.state === 'delivered';
  // An order no longer accepted (canceled) keeps the scan as evidence; the envelope's state still follows it.
  const completes = delivers && orderView(order.snapshot as PersistedOrder).state === 'accepted';
  const orderCompletion = completes ? nextOrderState(order, { type: 'COMPLETE' }) : null;
  const scan = { status: t.status, occurred_at: t.occurredAt, location: t.location, description: t.description, source: t.source };
  await moveMailedShipment(tx, {
    old: shipment,
    next: delivers ? { ...next, deliveredAt: orderNow(order) } : next,
    orderCompletion,
    event: {
      ...event,
      kind: EVENT_KIND_OF_STATUS[t.status],
      details: { scan, tracking_number: shipment.trackingNumber, ...more },
    } as MailedMove['event'],
  });
  return { shipment: next, completed: completes };
}
