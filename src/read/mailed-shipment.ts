import { NotFound } from '@fulfil/contract';
import type { SqlRunner } from '../db/database.ts';
import { fileSetsOf } from '../db/sql/file-sets.ts';
import type { FileStore } from '../files/file-store.ts';
import { trackingUrlOf } from '../domain/tracking-numbers.ts';
import { partyOfShipment } from './shipment-files.ts';
import { trackingEventJson, trackingEventsPage } from './tracking-events.ts';
import { TRACKING_EVENTS_DEFAULT_ITEMS, type TrackingEventsQuery } from './tracking-events-query.ts';

/** GET /v9/shipments/:id/tracking_events: both parties, a page at a time by the carrier's time, with their source. */
export async function listTrackingEvents(db: SqlRunner, shipmentId: number, brokerageId: number, query: TrackingEventsQuery = {}) {
  await partyOfShipment(db, shipmentId, brokerageId);
  const [row] = await db.rows<{ trackingNumber: string | null }>(
    `select tracking_number as "trackingNumber" from shipments where id = $1::bigint`,
    [shipmentId],
  );
  const trackingNumber = row?.trackingNumber ?? null;
  const page = await trackingEventsPage(db, shipmentId, {
    items: query['page[items]'] ?? TRACKING_EVENTS_DEFAULT_ITEMS,
    cursor: query['page[cursor]'],
  });
  return {
    shipment_id: shipmentId,
    tracking_number: trackingNumber,
    tracking_url: trackingUrlOf(trackingNumber),
    tracking_events: page.events.map(trackingEventJson),
    next_cursor: page.next,
  };
}

/** GET /v9/shipments/:id/airbill: the latest label's bytes, to the two parties only. */
export async function readAirbill(deps: { database: SqlRunner; files: FileStore }, shipmentId: number, brokerageId: number) {
  await partyOfShipment(deps.database, shipmentId, brokerageId);
  const file = (await fileSetsOf(deps.database, shipmentId, 'airbill')).at(-1)?.files[0];
  if (!file) throw new NotFound(`shipment ${shipmentId} has no airbill`);
  const bytes = await deps.files.get(file.sha256);
  if (!bytes) throw new Error(`file ${file.sha256} of the airbill of shipment ${shipmentId} is missing from the ${deps.files.kind} store`);
  return { sha256: file.sha256, bytes };
}
