import { eq } from 'drizzle-orm';
import type { Executor } from '../client.ts';
import { offices, orders } from '../schema.ts';

export type OrderWithSeller = typeof orders.$inferSelect & { sellerBrokerageId: number };

/**
 * The order with its seller's brokerage, unlocked: enough to tell who a caller is to it on the
 * paths that explain a refusal. Commands lock orders with db/sql/lock-order.ts.
 */
export async function findOrder(ex: Executor, orderId: number): Promise<OrderWithSeller | undefined> {
  const [row] = await ex
    .select({ order: orders, sellerBrokerageId: offices.brokerageId })
    .from(orders)
    .innerJoin(offices, eq(offices.id, orders.sellerOfficeId))
    .where(eq(orders.id, orderId));
  return row ? { ...row.order, sellerBrokerageId: row.sellerBrokerageId } : undefined;
}
