import type { SqlRunner } from '../db/client.ts';
import type { TrackingEventRow } from '../db/sql/mailed-shipment.ts';
import { toDate } from '../db/sql/shipment-columns.ts';

const SELECT = `select id, shipment_id as "shipmentId", source, status, occurred_at as "occurredAt", location, description,
  seller_claim as "sellerClaim", carrier_event_id as "carrierEventId", recorded_at as "recordedAt", held,
  time_flag as "timeFlag", reported_time as "reportedTime", revoked
from tracking_events where shipment_id = $1::bigint order by occurred_at, id`;

/** A shipment's tracking events, oldest first. */
export async function trackingEventsOf(db: Pick<SqlRunner, 'rows'>, shipmentId: number): Promise<TrackingEventRow[]> {
  const rows = await db.rows<TrackingEventRow>(SELECT, [shipmentId]);
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    shipmentId: Number(r.shipmentId),
    occurredAt: toDate(r.occurredAt),
    recordedAt: toDate(r.recordedAt),
  }));
}

export function trackingEventJson(e: TrackingEventRow) {
  return {
    id: e.id,
    status: e.status,
    occurred_at: e.occurredAt.toISOString(),
    location: e.location,
    description: e.description,
    source: e.source,
    seller_claim: e.sellerClaim,
    held: e.held,
    time_flag: e.timeFlag,
    reported_time: e.reportedTime,
    revoked: e.revoked,
    recorded_at: e.recordedAt.toISOString(),
  };
}
