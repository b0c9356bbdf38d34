import { eq } from 'drizzle-orm';
import type { Executor, Tx } from '../client.ts';
import { offices, orders } from '../schema.ts';

export type LockedOrder = typeof orders.$inferSelect & { sellerBrokerageId: number };

function selectOrder(ex: Executor, orderId: number) {
  return ex
    .select({ order: orders, sellerBrokerageId: offices.brokerageId })
    .from(orders)
    .innerJoin(offices, eq(offices.id, orders.sellerOfficeId))
    .where(eq(orders.id, orderId));
}

/** The order with its seller's brokerage, unlocked: enough to tell who the caller is to it. */
export async function findOrder(ex: Executor, orderId: number): Promise<LockedOrder | undefined> {
  const [row] = await selectOrder(ex, orderId);
  return row ? { ...row.order, sellerBrokerageId: row.sellerBrokerageId } : undefined;
}

/**
 * Locks the order row for the rest of the transaction: every command on an order and its
 * shipments serialises here, which is what rules out lost updates and duplicate shipments.
 * Take it only once the caller is known to be a party to the order, so a stranger can neither
 * queue behind nor hold up another brokerage's orders.
 */
export async function lockOrder(tx: Tx, orderId: number): Promise<LockedOrder | undefined> {
  const [row] = await selectOrder(tx, orderId).for('update', { of: orders });
  return row ? { ...row.order, sellerBrokerageId: row.sellerBrokerageId } : undefined;
}
