import { isMailedType, type TrackingStatus } from '@fulfil/contract';
import type { PersistedOrder } from '../../machines/index.ts';
import type { SqlTx } from '../db/client.ts';
import { liveShipment } from '../db/sql/live-shipment.ts';
import { toDate } from '../db/sql/shipment-columns.ts';
import { applyScanEffect } from './tracking-moves.ts';

/**
 * The carrier scans held while the order's cancellation was proposed, applied now that it is
 * accepted again (D-152), in the order they happened: the envelope moves, and a delivery completes
 * the order. One statement when nothing was held. True when the order was completed.
 */
export async function applyHeldScans(
  tx: SqlTx,
  order: { id: number; snapshot: PersistedOrder; clockTime: Date | null },
  shipment: { id: number; type: string } | null,
): Promise<boolean> {
  if (!shipment || !isMailedType(shipment.type)) return false;
  const held = await tx.rows<{ status: TrackingStatus; occurredAt: unknown; location: string | null; description: string | null }>(
    `with h as (update tracking_events set held = false where order_id = $1::bigint and held
       returning id, status, occurred_at, location, description)
     select status, occurred_at as "occurredAt", location, description from h order by occurred_at, id`,
    [order.id],
  );
  if (held.length === 0) return false;
  const live = await liveShipment(tx, shipment.id, { drawNextId: false });
  if (!live) return false;
  let current = live.shipment;
  let completed = false;
  for (const scan of held) {
    const moved = await applyScanEffect(
      tx,
      // Completed by an earlier scan of this loop: the later ones move the envelope only.
      { id: order.id, snapshot: completed ? { value: 'completed' } : order.snapshot, clockTime: order.clockTime },
      current,
      {
        source: 'carrier',
        status: scan.status,
        occurredAt: toDate(scan.occurredAt).toISOString(),
        location: scan.location,
        description: scan.description,
      },
      { actor: { type: 'system', reason: 'carrier_scan' } },
    );
    current = moved.shipment;
    completed ||= moved.completed;
  }
  return completed;
}
