// Order lifecycle (docs/API.md §Orders, §Shipments): pending → accepted → completed. Pure; same rehydrate → apply →
// persist helpers as the shipment machine, so workers never touch xstate directly.
import { getInitialSnapshot, setup, transition, type StateValue } from 'xstate';
import { memoized } from './memo.ts';

export const ORDER_STATES = ['pending', 'accepted', 'completed'] as const;
export type OrderState = (typeof ORDER_STATES)[number];
export type OrderEvent = { type: 'ACCEPT' } | { type: 'COMPLETE' };

export const orderMachine = setup({
  types: {} as { events: OrderEvent },
}).createMachine({
  id: 'order',
  initial: 'pending',
  states: {
    pending: { on: { ACCEPT: 'accepted' } },
    accepted: { on: { COMPLETE: 'completed' } },
    completed: { type: 'final' },
  },
});

/** The JSON object stored in the jsonb column (output of `getPersistedSnapshot`). */
export interface PersistedOrder {
  readonly status: string;
  readonly value: StateValue;
  readonly [key: string]: unknown;
}

export type OrderView = { state: OrderState };

export type OrderResult = { ok: true; snapshot: PersistedOrder; view: OrderView } | { ok: false; view: OrderView; reason: string };

type OrderSnapshot = ReturnType<typeof orderMachine.resolveState>;

function persist(snapshot: OrderSnapshot): PersistedOrder {
  return orderMachine.getPersistedSnapshot(snapshot) as unknown as PersistedOrder;
}

function rehydrate(persisted: PersistedOrder): OrderSnapshot {
  if (!ORDER_STATES.includes(persisted.value as OrderState)) {
    throw new Error(`persisted order has no valid state: ${JSON.stringify(persisted.value)}`);
  }
  return orderMachine.resolveState({ value: persisted.value });
}

export const initialOrderSnapshot: () => PersistedOrder = memoized(
  () => '',
  () => persist(getInitialSnapshot(orderMachine)),
);

export const orderView: (persisted: PersistedOrder) => OrderView = memoized(
  (persisted) => JSON.stringify(persisted.value),
  (persisted) => ({ state: rehydrate(persisted).value as OrderState }),
);

const VERBS: Record<OrderEvent['type'], string> = { ACCEPT: 'be accepted', COMPLETE: 'be completed' };

export const applyOrderEvent: (persisted: PersistedOrder, event: OrderEvent) => OrderResult = memoized(
  (persisted, event) => `${JSON.stringify(persisted.value)}${event.type}`,
  apply,
);

function apply(persisted: PersistedOrder, event: OrderEvent): OrderResult {
  const snapshot = rehydrate(persisted);
  // can() is false both for "no such transition here" and for a completed (done) snapshot.
  if (!snapshot.can(event)) {
    const view = orderView(persisted);
    return { ok: false, view, reason: `order is ${view.state}; it cannot ${VERBS[event.type]}` };
  }
  const [next] = transition(orderMachine, snapshot, event);
  const saved = persist(next);
  return { ok: true, snapshot: saved, view: orderView(saved) };
}
