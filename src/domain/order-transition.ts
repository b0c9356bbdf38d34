import { applyOrderEvent, initialOrderSnapshot, type OrderEvent, type OrderState, type PersistedOrder } from '../../machines/index.ts';
import { InvalidTransition } from '@fulfil/contract';

/** The order's state and snapshot after one event of its machine; a refused event is a 422. */
export function nextOrderState(order: { snapshot: unknown }, event: OrderEvent): { state: OrderState; snapshot: PersistedOrder } {
  const current = (order.snapshot as PersistedOrder | null) ?? initialOrderSnapshot();
  const result = applyOrderEvent(current, event);
  if (!result.ok) throw new InvalidTransition(result.reason);
  return { state: result.view.state, snapshot: result.snapshot };
}
