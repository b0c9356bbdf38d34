import type { SqlRunner } from '../db/client.ts';
import type { TrackingEventRow } from '../db/sql/mailed-shipment.ts';
import { toDate } from '../db/sql/shipment-columns.ts';

const COLUMNS = `id, shipment_id as "shipmentId", source, status, occurred_at as "occurredAt", location, description,
  seller_claim as "sellerClaim", carrier_event_id as "carrierEventId", recorded_at as "recordedAt", held,
  time_flag as "timeFlag", reported_time as "reportedTime", revoked`;
const SELECT = `select ${COLUMNS} from tracking_events where shipment_id = $1::bigint order by occurred_at, id`;
// A page after a cursor: (the carrier's time in microseconds since the epoch, the row's id).
const PAGE = `select ${COLUMNS}, (extract(epoch from occurred_at) * 1000000)::bigint::text as "occurredUs" from tracking_events
where shipment_id = $1::bigint and (occurred_at, id) > ('epoch'::timestamptz + $2::bigint * interval '1 microsecond', $3::bigint)
order by occurred_at, id limit $4::int`;

/** A shipment's tracking events, oldest first. */
export async function trackingEventsOf(db: Pick<SqlRunner, 'rows'>, shipmentId: number): Promise<TrackingEventRow[]> {
  return (await db.rows<TrackingEventRow>(SELECT, [shipmentId])).map(rowOf);
}

/**
 * One page of a shipment's tracking events by the carrier's time (the time each was received
 * beside it), from a cursor of the previous page; `next` is null on the last page.
 */
export async function trackingEventsPage(
  db: Pick<SqlRunner, 'rows'>,
  shipmentId: number,
  page: { items: number; cursor: string | undefined },
): Promise<{ events: TrackingEventRow[]; next: string | null }> {
  // From before any time a timestamptz holds (4714 BC), id 0.
  const [us, id] = page.cursor ? page.cursor.split('.') : ['-210866803200000000', '0'];
  const rows = await db.rows<TrackingEventRow & { occurredUs: string }>(PAGE, [shipmentId, us, id, page.items + 1]);
  const more = rows.length > page.items;
  const shown = rows.slice(0, page.items);
  const last = shown.at(-1);
  return { events: shown.map(rowOf), next: more && last ? `${last.occurredUs}.${Number(last.id)}` : null };
}

function rowOf(r: TrackingEventRow): TrackingEventRow {
  return {
    ...r,
    id: Number(r.id),
    shipmentId: Number(r.shipmentId),
    occurredAt: toDate(r.occurredAt),
    recordedAt: toDate(r.recordedAt),
  };
}

/**
 * Whether a tracking event is the seller's word rather than the carrier's scan, as every answer
 * shows it (`seller_claim`): one the service took as a claim (a carrier-tracked shipment, a
 * receipt window), and every `delivered` the seller reports, which the carrier never confirmed.
 */
export function isSellerClaim(e: { sellerClaim: boolean; source: string; status: string }): boolean {
  return e.sellerClaim || (e.source !== 'carrier' && e.status === 'delivered');
}

export function trackingEventJson(e: TrackingEventRow) {
  return {
    id: e.id,
    status: e.status,
    occurred_at: e.occurredAt.toISOString(),
    location: e.location,
    description: e.description,
    source: e.source,
    seller_claim: isSellerClaim(e),
    held: e.held,
    time_flag: e.timeFlag,
    reported_time: e.reportedTime,
    revoked: e.revoked,
    recorded_at: e.recordedAt.toISOString(),
  };
}
