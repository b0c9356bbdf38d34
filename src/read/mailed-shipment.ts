import { withMode } from './answer-mode.ts';
import { NotFound, ShipmentReplaced } from '@fulfil/contract';
import type { SqlRunner } from '../db/database.ts';
import { fileSetsOf } from '../db/sql/file-sets.ts';
import type { FileStore } from '../files/file-store.ts';
import { trackingUrlOf } from '../domain/tracking-numbers.ts';
import { partyOfShipment } from './shipment-files.ts';
import { trackingEventJson, trackingEventsPage } from './tracking-events.ts';
import { TRACKING_EVENTS_DEFAULT_ITEMS, type TrackingEventsQuery } from './tracking-events-query.ts';

/**
 * A replaced shipment's id answers 410 naming the live one, as GET /v9/shipments/:id does (D-163):
 * its label and scans are the old envelope's, and a caller reading them by the old id would act
 * on a shipment that no longer counts. The order's history keeps them (its events, the evidence).
 */
async function assertLive(db: SqlRunner, shipmentId: number): Promise<void> {
  const [row] = await db.rows<{ liveId: string | null }>(
    `select case when s.replaced_by is null then s.id
       else (select l.id from shipments l where l.order_id = s.order_id and l.replaced_by is null) end as "liveId"
     from shipments s where s.id = $1::bigint`,
    [shipmentId],
  );
  if (row?.liveId != null && Number(row.liveId) !== shipmentId) throw new ShipmentReplaced(Number(row.liveId));
}

/** GET /v9/shipments/:id/tracking_events: both parties, a page at a time by the carrier's time, with their source. */
export async function listTrackingEvents(db: SqlRunner, shipmentId: number, brokerageId: number, query: TrackingEventsQuery = {}) {
  const order = await partyOfShipment(db, shipmentId, brokerageId);
  await assertLive(db, shipmentId);
  const [row] = await db.rows<{ trackingNumber: string | null }>(
    `select tracking_number as "trackingNumber" from shipments where id = $1::bigint`,
    [shipmentId],
  );
  const trackingNumber = row?.trackingNumber ?? null;
  const page = await trackingEventsPage(db, shipmentId, {
    items: query['page[items]'] ?? TRACKING_EVENTS_DEFAULT_ITEMS,
    cursor: query['page[cursor]'],
  });
  return withMode(
    {
      shipment_id: shipmentId,
      tracking_number: trackingNumber,
      tracking_url: trackingUrlOf(trackingNumber),
      tracking_events: page.events.map(trackingEventJson),
      next_cursor: page.next,
    },
    order,
  );
}

/** GET /v9/shipments/:id/airbill: the latest label's bytes, to the two parties only. */
export async function readAirbill(deps: { database: SqlRunner; files: FileStore }, shipmentId: number, brokerageId: number) {
  await partyOfShipment(deps.database, shipmentId, brokerageId);
  await assertLive(deps.database, shipmentId);
  const file = (await fileSetsOf(deps.database, shipmentId, 'airbill')).at(-1)?.files[0];
  if (!file) throw new NotFound(`shipment ${shipmentId} has no airbill`);
  const bytes = await deps.files.get(file.sha256);
  if (!bytes) throw new Error(`file ${file.sha256} of the airbill of shipment ${shipmentId} is missing from the ${deps.files.kind} store`);
  return { sha256: file.sha256, bytes };
}
