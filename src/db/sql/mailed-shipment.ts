import type { SqlTx } from '../client.ts';
import type { AddressRow } from '../ops/contacts.ts';
import type { ShipmentRow } from '../ops/shipment-rows.ts';
import type { TrackingSource } from '../schema/tracking.ts';
import { appendEventCtes, eventMessage, type EventFacts, type SystemEventFacts } from './append-event.ts';
import { named } from './named-params.ts';
import { storeAnswerCte } from './store-result.ts';
import { shipmentBeforeOf, shipmentRowJson, shipmentWasCte, type ShipmentBefore } from './shipment-version.ts';

// A mailed shipment changes in place (its id stays, as with complete): its tracking facts and
// state, the order completed when a delivery scan delivers it, one event, in one statement. As in
// complete-shipment.ts, the event names what it changed (shipment-version.ts, shipmentBeforeOf).
const MOVE = named<MoveValues>(
  (p) => `
with ${shipmentWasCte(`${p.shipmentId}::bigint`)},
n as (
  update shipments set state = ${p.state}, snapshot = ${p.snapshot}::text::jsonb, tracking_number = ${p.trackingNumber},
    carrier_tracker_id = ${p.trackerId}, carrier_label_id = ${p.labelId}, service_type = ${p.serviceType},
    estimated_delivery_at = ${p.estimatedDeliveryAt}::timestamptz,
    delivered_at = case when ${p.state} = 'delivered' then coalesce(delivered_at, fulfil_now()) else delivered_at end
  where id = ${p.shipmentId}::bigint and order_id = ${p.orderId}::bigint and replaced_by is null
  returning id, ${shipmentRowJson('shipments')} as after
),
o as (
  update orders set state = coalesce(${p.orderState}::text, orders.state), snapshot = coalesce(${p.orderSnapshot}::text::jsonb, orders.snapshot),
    completed_at = case when ${p.orderState}::text is null then orders.completed_at else fulfil_now() end, event_seq = orders.event_seq + 1
  from n where orders.id = ${p.orderId}::bigint returning orders.id, orders.event_seq
),
${appendEventCtes(p.message, 'true', shipmentBeforeOf('n.after'))},
${storeAnswerCte(p, `${p.storeAnswer}::boolean`)}
select n.id from n`,
);

interface MoveValues {
  shipmentId: number;
  orderId: number;
  state: string;
  snapshot: string;
  trackingNumber: string | null;
  trackerId: string | null;
  labelId: string | null;
  serviceType: string | null;
  estimatedDeliveryAt: string | null;
  orderState: string | null;
  orderSnapshot: string | null;
  message: string;
  storeAnswer: boolean;
  commandId: string;
  status: number;
  body: string;
}

type EventOf<F> = F extends unknown ? Omit<F, 'orderId' | 'shipmentId' | 'from' | 'to'> : never;

export interface MailedMove {
  old: ShipmentRow;
  /** The row as it is to be: state, snapshot and the tracking columns are written. */
  next: ShipmentRow;
  orderCompletion: { state: string; snapshot: unknown } | null;
  event: EventOf<EventFacts | SystemEventFacts>;
  /** Stored with the write (the command's last statement); absent: the handler stores it later. */
  answer?: { commandId: string; status: number; body: unknown };
}

export async function moveMailedShipment(tx: SqlTx, w: MailedMove): Promise<void> {
  const n = w.next;
  const rows = await tx.rows(
    MOVE.text,
    MOVE.params({
      shipmentId: n.id,
      orderId: n.orderId,
      state: n.state,
      snapshot: JSON.stringify(n.snapshot),
      trackingNumber: n.trackingNumber,
      trackerId: n.carrierTrackerId,
      labelId: n.carrierLabelId,
      serviceType: n.serviceType,
      estimatedDeliveryAt: n.estimatedDeliveryAt ? n.estimatedDeliveryAt.toISOString() : null,
      orderState: w.orderCompletion?.state ?? null,
      orderSnapshot: w.orderCompletion ? JSON.stringify(w.orderCompletion.snapshot) : null,
      message: eventMessage({
        ...w.event,
        orderId: n.orderId,
        shipmentId: w.old.id,
        from: { type: w.old.type, state: w.old.state },
        to: { type: n.type, state: n.state },
      } as EventFacts | SystemEventFacts),
      storeAnswer: w.answer !== undefined,
      commandId: w.answer?.commandId ?? '',
      status: w.answer?.status ?? 200,
      body: JSON.stringify(w.answer?.body ?? null),
    }),
  );
  if (rows.length !== 1) throw new Error(`shipment ${n.id} was not live under its order's lock`);
}

export interface TrackingEventRow {
  id: number;
  shipmentId: number;
  source: TrackingSource;
  status: string;
  occurredAt: Date;
  location: string | null;
  description: string | null;
  sellerClaim: boolean;
  carrierEventId: string | null;
  recordedAt: Date;
  held: boolean;
  timeFlag: string | null;
  reportedTime: string | null;
  revoked: boolean;
}

const INSERT_TRACKING = named<{
  orderId: number;
  shipmentId: number;
  source: string;
  status: string;
  occurredAt: string;
  location: string | null;
  description: string | null;
  sellerClaim: boolean;
  carrierEventId: string | null;
  held: boolean;
  timeFlag: string | null;
  reportedTime: string | null;
  revoked: boolean;
}>(
  // A scan re-timed to its arrival is the same scan when it comes again with the same time as given.
  (p) => `
insert into tracking_events (order_id, shipment_id, source, status, occurred_at, location, description, seller_claim, carrier_event_id,
  held, time_flag, reported_time, revoked)
select ${p.orderId}::bigint, ${p.shipmentId}::bigint, ${p.source}::text, ${p.status}::text, ${p.occurredAt}::timestamptz, ${p.location}::text,
  ${p.description}::text, ${p.sellerClaim}::boolean, ${p.carrierEventId}::text, ${p.held}::boolean, ${p.timeFlag}::text, ${p.reportedTime}::text,
  ${p.revoked}::boolean
where ${p.reportedTime}::text is null or not exists (
  select 1 from tracking_events e where e.shipment_id = ${p.shipmentId}::bigint and e.source = ${p.source}::text
    and e.status = ${p.status}::text and e.reported_time = ${p.reportedTime}::text)
on conflict (shipment_id, source, status, occurred_at) do nothing
returning id`,
);

/** Records a tracking event once (shipment, source, status, time); false when it was already there. */
export async function recordTrackingEvent(
  tx: SqlTx,
  e: {
    orderId: number;
    shipmentId: number;
    source: TrackingSource;
    status: string;
    occurredAt: string;
    location: string | null;
    description: string | null;
    sellerClaim: boolean;
    carrierEventId: string | null;
    held: boolean;
    timeFlag: string | null;
    reportedTime: string | null;
    revoked: boolean;
  },
): Promise<boolean> {
  const rows = await tx.rows(INSERT_TRACKING.text, INSERT_TRACKING.params(e));
  return rows.length === 1;
}

/** Takes a carrier's webhook event once: false when its id was already taken (a retry). */
export async function takeCarrierEvent(
  tx: Pick<SqlTx, 'rows'>,
  e: { provider: string; eventId: string; trackingCode: string | null; outcome: string; scans?: unknown },
): Promise<boolean> {
  const rows = await tx.rows(
    `insert into carrier_events (provider, event_id, tracking_code, outcome, scans) values ($1, $2, $3, $4, $5::text::jsonb)
     on conflict (provider, event_id) do nothing returning event_id`,
    [e.provider, e.eventId, e.trackingCode, e.outcome, e.scans === undefined ? null : JSON.stringify(e.scans)],
  );
  return rows.length === 1;
}

/** The address row a mailed shipment goes to, for its answers. */
export async function addressRow(tx: Pick<SqlTx, 'rows'>, id: number | null): Promise<AddressRow | undefined> {
  if (id === null) return undefined;
  const [row] = await tx.rows<AddressRow>(
    `select id, label, name, street_address as "streetAddress", extended_address as "extendedAddress", locality, region,
       postal_code as "postalCode", country_code as "countryCode" from addresses where id = $1::bigint`,
    [id],
  );
  return row;
}

// The label's facts on the shipment, ahead of the statement that attaches the label and appends
// its event (file-sets.ts attachFileSet), which records what this changed (shipment-version.ts).
const SET_LABEL = named<{
  shipmentId: number;
  orderId: number;
  trackingNumber: string;
  trackerId: string | null;
  labelId: string | null;
  serviceType: string | null;
  estimatedDeliveryAt: string | null;
}>(
  (p) => `
with ${shipmentWasCte(`${p.shipmentId}::bigint`)},
n as (
  update shipments set tracking_number = ${p.trackingNumber}, carrier_tracker_id = ${p.trackerId}, carrier_label_id = ${p.labelId},
    service_type = ${p.serviceType}, estimated_delivery_at = ${p.estimatedDeliveryAt}::timestamptz
  where id = ${p.shipmentId}::bigint and order_id = ${p.orderId}::bigint and replaced_by is null
  returning id, ${shipmentRowJson('shipments')} as after
)
select n.id, ${shipmentBeforeOf('n.after')} as before from n`,
);

/** Returns what it changed, for the airbill's event. */
export async function setLabelFacts(tx: Pick<SqlTx, 'rows'>, s: ShipmentRow): Promise<ShipmentBefore> {
  const rows = await tx.rows<{ before: ShipmentBefore }>(
    SET_LABEL.text,
    SET_LABEL.params({
      shipmentId: s.id,
      orderId: s.orderId,
      trackingNumber: s.trackingNumber ?? '',
      trackerId: s.carrierTrackerId,
      labelId: s.carrierLabelId,
      serviceType: s.serviceType,
      estimatedDeliveryAt: s.estimatedDeliveryAt ? s.estimatedDeliveryAt.toISOString() : null,
    }),
  );
  if (rows.length !== 1) throw new Error(`shipment ${s.id} was not live under its order's lock`);
  return rows[0]!.before;
}

/** The carrier's latest estimate on the live shipment; the order's deadline, to compare it with. */
export async function setEstimate(tx: Pick<SqlTx, 'rows'>, shipmentId: number, estimate: Date): Promise<{ deliverBy: Date | null }> {
  const [row] = await tx.rows<{ deliverBy: string | Date | null }>(
    `with s as (update shipments set estimated_delivery_at = $2::timestamptz where id = $1::bigint and replaced_by is null returning order_id)
     select o.deliver_by as "deliverBy" from orders o join s on o.id = s.order_id`,
    [shipmentId, estimate.toISOString()],
  );
  return { deliverBy: row?.deliverBy ? new Date(row.deliverBy) : null };
}
