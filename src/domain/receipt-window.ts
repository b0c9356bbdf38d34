import { orderNow } from '../db/sql/lock-order.ts';
import type { TrackingStatus } from '@fulfil/contract';
import type { SqlTx } from '../db/client.ts';
import type { ShipmentRow } from '../db/ops/shipment-rows.ts';
import { toDate } from '../db/sql/shipment-columns.ts';
import { applyScanEffect, type EventWho } from './tracking-moves.ts';

/** Who completed an order whose envelope no carrier tracks (D-156). */
export type CompletedBy = 'buyer_confirmed' | 'unchallenged_claim';

/** Opens the order's confirmation window, unless one is open already (the first claim's stands); answers its end. */
export async function openReceiptWindow(tx: Pick<SqlTx, 'rows'>, orderId: number, until: Date): Promise<Date> {
  const [row] = await tx.rows<{ confirmBy: unknown }>(
    `update orders set receipt_confirm_by = coalesce(receipt_confirm_by, $2::timestamptz) where id = $1::bigint
     returning receipt_confirm_by as "confirmBy"`,
    [orderId, until.toISOString()],
  );
  return toDate(row!.confirmBy);
}

export async function closeReceiptWindow(tx: Pick<SqlTx, 'rows'>, orderId: number): Promise<void> {
  await tx.rows(`update orders set receipt_confirm_by = null where id = $1::bigint and receipt_confirm_by is not null`, [orderId]);
}

/**
 * Delivers the shipment and completes the order on the buyer's confirmation or the seller's
 * unchallenged claim (D-156): the seller's latest `delivered` claim is the scan the event tells,
 * `completed_by` says on whose word. False when the envelope can no longer be delivered (returned).
 */
export async function completeOnReceipt(
  tx: SqlTx,
  order: { id: number; snapshot: unknown; clockTime: Date | null },
  shipment: ShipmentRow,
  completedBy: CompletedBy,
  event: EventWho,
): Promise<boolean> {
  const [claim] = await tx.rows<{ occurredAt: unknown; location: string | null; description: string | null }>(
    `select occurred_at as "occurredAt", location, description from tracking_events
     where order_id = $1::bigint and source = 'seller' and status = 'delivered' order by recorded_at desc, id desc limit 1`,
    [order.id],
  );
  const status: TrackingStatus = 'delivered';
  const moved = await applyScanEffect(
    tx,
    order,
    shipment,
    {
      source: 'seller',
      status,
      occurredAt: claim ? toDate(claim.occurredAt).toISOString() : orderNow(order).toISOString(),
      location: claim?.location ?? null,
      description: claim?.description ?? null,
    },
    event,
    {},
    { completed_by: completedBy },
  );
  if (moved.completed) await closeReceiptWindow(tx, order.id);
  return moved.completed;
}
