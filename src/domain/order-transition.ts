import { eq } from 'drizzle-orm';
import { applyOrderEvent, initialOrderSnapshot, type OrderEvent, type PersistedOrder } from '../../machines/index.ts';
import type { Tx } from '../db/client.ts';
import type { LockedOrder } from '../db/ops/lock-order.ts';
import { orders } from '../db/schema.ts';
import { InvalidTransition } from '../errors.ts';

/** Applies one event to the order's machine and stores the new snapshot and state. */
export async function transitionOrder(
  tx: Tx,
  order: LockedOrder,
  event: OrderEvent,
  extra: Partial<typeof orders.$inferInsert> = {},
): Promise<'pending' | 'accepted' | 'completed'> {
  const current = (order.snapshot as PersistedOrder | null) ?? initialOrderSnapshot();
  const result = applyOrderEvent(current, event);
  if (!result.ok) throw new InvalidTransition(result.reason);
  await tx
    .update(orders)
    .set({ ...extra, state: result.view.state, snapshot: result.snapshot })
    .where(eq(orders.id, order.id));
  return result.view.state;
}
