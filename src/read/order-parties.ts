import { eq } from 'drizzle-orm';
import { orderRole, type OrderRole } from '../auth/roles.ts';
import type { Caller } from '../auth/caller.ts';
import type { Executor } from '../db/client.ts';
import { offices, orders } from '../db/schema.ts';
import { NotFound } from '@fulfil/contract';
import { orderFactsJson, type OrderFacts } from './order-json.ts';

export interface OrderHead {
  id: number;
  oid: string;
  state: string;
  role: Exclude<OrderRole, 'stranger'>;
  /** What the order's answers show beyond id and oid (order-json.ts). */
  facts: OrderFacts;
}

/**
 * The order as its seller or buyer may read it; anyone else is told it does not exist (404), so
 * order ids cannot be probed. Unlocked: a read never waits for a command.
 */
export async function readableOrder(ex: Executor, orderId: number, caller: Pick<Caller, 'brokerageId'>): Promise<OrderHead> {
  const [row] = await ex
    .select({
      id: orders.id,
      oid: orders.oid,
      state: orders.state,
      snapshot: orders.snapshot,
      inHandOn: orders.inHandOn,
      deliverBy: orders.deliverBy,
      rejectionReason: orders.rejectionReason,
      rejectionNotes: orders.rejectionNotes,
      livemode: orders.livemode,
      testClockId: orders.testClockId,
      buyerBrokerageId: orders.buyerBrokerageId,
      sellerBrokerageId: offices.brokerageId,
    })
    .from(orders)
    .innerJoin(offices, eq(offices.id, orders.sellerOfficeId))
    .where(eq(orders.id, orderId));
  const role = row ? orderRole(caller, row) : 'stranger';
  if (!row || role === 'stranger') throw new NotFound(`order ${orderId} not found`);
  return { id: row.id, oid: row.oid, state: row.state, role, facts: orderFactsJson(row) };
}
