import { eq } from 'drizzle-orm';
import type { Tx } from '../client.ts';
import { offices, orders } from '../schema.ts';

export type LockedOrder = typeof orders.$inferSelect & { sellerBrokerageId: number };

/**
 * Locks the order row for the rest of the transaction: every command on an order and its
 * shipments serialises here, which is what rules out lost updates and duplicate shipments.
 */
export async function lockOrder(tx: Tx, orderId: number): Promise<LockedOrder | undefined> {
  const [row] = await tx
    .select({ order: orders, sellerBrokerageId: offices.brokerageId })
    .from(orders)
    .innerJoin(offices, eq(offices.id, orders.sellerOfficeId))
    .where(eq(orders.id, orderId))
    .for('update', { of: orders });
  return row ? { ...row.order, sellerBrokerageId: row.sellerBrokerageId } : undefined;
}
