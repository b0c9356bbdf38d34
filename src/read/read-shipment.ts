import { withMode } from './answer-mode.ts';
import { eq } from 'drizzle-orm';
import type { Caller } from '../auth/caller.ts';
import type { Executor, SqlRunner } from '../db/client.ts';
import { barcodesOf } from '../db/sql/shipment-barcodes.ts';
import { barcodesJson } from '../domain/barcode-reissue.ts';
import { shipments } from '../db/schema.ts';
import { NotFound, ShipmentReplaced } from '@fulfil/contract';
import { liveShipmentOf } from './live-shipment.ts';
import { readableOrder } from './order-parties.ts';
import { shipmentReadJson } from './shipment-json.ts';

/**
 * GET /v9/shipments/:id: the live shipment. Unknown, or of an order the caller is no party to:
 * 404. An id an update replaced: 410 naming the live id, as an update on it would answer; every
 * replacement stays within its order, so the live id is the order's live shipment.
 */
export async function readShipment(ex: Executor, shipmentId: number, caller: Pick<Caller, 'brokerageId'>, runner?: SqlRunner) {
  const [row] = await ex.select({ orderId: shipments.orderId }).from(shipments).where(eq(shipments.id, shipmentId));
  const notFound = new NotFound(`shipment ${shipmentId} not found`);
  if (!row) throw notFound;
  let order: { livemode: boolean };
  try {
    order = (await readableOrder(ex, row.orderId, caller)).facts;
  } catch (err) {
    throw err instanceof NotFound ? notFound : err;
  }
  const live = await liveShipmentOf(ex, row.orderId);
  if (!live) throw notFound;
  if (live.shipment.id !== shipmentId) throw new ShipmentReplaced(live.shipment.id);
  const json = withMode(shipmentReadJson(live.shipment, live.contacts), order);
  if (!runner || live.shipment.type === 'LocalPickup') return json;
  // The barcodes it gave, the live and the revoked (by a reissue) apart; none: nothing to show.
  const barcodes = await barcodesOf(runner, shipmentId);
  return barcodes.length ? { ...json, barcodes: barcodesJson(barcodes) } : json;
}
