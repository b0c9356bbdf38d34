import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { shipmentEvents, shipments } from '../db/schema.ts';
import { shipmentEventColumns, type ShipmentEventRow } from './public-event.ts';

export type HistoryEntry = ShipmentEventRow;

/** Every transition of the order a shipment id belongs to, across all its replacements. */
export async function shipmentHistory(ex: Executor, shipmentId: number): Promise<HistoryEntry[] | undefined> {
  const [shipment] = await ex.select({ orderId: shipments.orderId }).from(shipments).where(eq(shipments.id, shipmentId));
  if (!shipment) return undefined;
  return ex
    .select(shipmentEventColumns)
    .from(shipmentEvents)
    .where(eq(shipmentEvents.orderId, shipment.orderId))
    .orderBy(asc(shipmentEvents.seq));
}
