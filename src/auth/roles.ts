import { and, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { offices } from '../db/schema.ts';
import { Unauthorized } from '@fulfil/contract';
import type { Caller } from './caller.ts';

/** The one place that answers tenancy questions (docs/API.md §Roles and tenancy). */

export type OrderRole = 'seller' | 'buyer' | 'stranger';

/**
 * How the caller stands to an order. Should one brokerage be on both sides, it acts as the
 * seller: the seller's operations are the ones that move an order forward.
 */
export function orderRole(caller: Pick<Caller, 'brokerageId'>, order: { sellerBrokerageId: number; buyerBrokerageId: number }): OrderRole {
  if (caller.brokerageId === order.sellerBrokerageId) return 'seller';
  if (caller.brokerageId === order.buyerBrokerageId) return 'buyer';
  return 'stranger';
}

export async function officeBelongsTo(ex: Executor, officeId: number, brokerageId: number): Promise<boolean> {
  const rows = await ex
    .select({ id: offices.id })
    .from(offices)
    .where(and(eq(offices.id, officeId), eq(offices.brokerageId, brokerageId)))
    .limit(1);
  return rows.length > 0;
}

/** One message for a foreign office and a missing one, so office ids cannot be probed (docs/API.md §Roles and tenancy). */
export const OFFICE_ACCESS_DENIED = 'office_id is not an office of your brokerage';

export async function assertOfficeAccess(ex: Executor, officeId: number, caller: Pick<Caller, 'brokerageId'>): Promise<void> {
  if (!(await officeBelongsTo(ex, officeId, caller.brokerageId))) throw new Unauthorized(OFFICE_ACCESS_DENIED);
}
