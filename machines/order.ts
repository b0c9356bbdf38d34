// Order lifecycle (docs/API.md §Orders, docs/LIFECYCLE.md): pending → accepted | rejected; accepted →
// cancel_proposed → canceled | accepted; accepted → completed. Pure; same rehydrate → apply → persist
// helpers as the shipment machine, so workers never touch xstate directly.
import { getInitialSnapshot, setup, transition, type StateValue } from 'xstate';
import { memoized } from './memo.ts';

import { ORDER_STATES, type OrderState } from '@fulfil/contract';

export { ORDER_STATES, type OrderState };

/** States an order can still leave: its deadline is watched and its in-hand date may move. */
export const OPEN_ORDER_STATES = ['pending', 'accepted', 'cancel_proposed'] as const satisfies readonly OrderState[];
export type OrderParty = 'seller' | 'buyer';
export type OrderEvent =
  | { type: 'ACCEPT' }
  | { type: 'REJECT' }
  // The first party's CANCEL proposes; the other party's confirms. WITHDRAW is the proposer's own.
  | { type: 'CANCEL'; by: OrderParty }
  | { type: 'WITHDRAW'; by: OrderParty }
  | { type: 'COMPLETE' };

// Who proposed is a substate, not context: it is part of the state the graph walks, and a
// proposal by the seller and one by the buyer take different answers.
export const orderMachine = setup({
  types: {} as { events: OrderEvent },
  guards: {
    bySeller: ({ event }) => 'by' in event && event.by === 'seller',
    byBuyer: ({ event }) => 'by' in event && event.by === 'buyer',
  },
}).createMachine({
  id: 'order',
  initial: 'pending',
  states: {
    pending: { on: { ACCEPT: 'accepted', REJECT: 'rejected' } },
    rejected: { type: 'final' },
    accepted: {
      on: {
        COMPLETE: 'completed',
        CANCEL: [
          { guard: 'bySeller', target: 'cancel_proposed.seller' },
          { guard: 'byBuyer', target: 'cancel_proposed.buyer' },
        ],
      },
    },
    cancel_proposed: {
      initial: 'seller',
      states: {
        seller: {
          on: {
            CANCEL: { guard: 'byBuyer', target: '#order.canceled' },
            WITHDRAW: { guard: 'bySeller', target: '#order.accepted' },
          },
        },
        buyer: {
          on: {
            CANCEL: { guard: 'bySeller', target: '#order.canceled' },
            WITHDRAW: { guard: 'byBuyer', target: '#order.accepted' },
          },
        },
      },
    },
    canceled: { type: 'final' },
    completed: { type: 'final' },
  },
});

/**
 * The JSON object stored in the jsonb column: of `getPersistedSnapshot`'s output, the state value,
 * which is all rehydration reads (docs/DECISIONS.md D-138). The rest is the same for every order
 * (no context, no history states, no children; `status` follows from the value), and it was most
 * of the bytes written with each transition. Rows written before keep the whole output; it reads the same.
 */
export interface PersistedOrder {
  readonly value: StateValue;
  readonly [key: string]: unknown;
}

/** `proposedBy`: the party whose cancellation waits for the other's answer (cancel_proposed only). */
export type OrderView = { state: OrderState; proposedBy: OrderParty | null };

export type OrderResult = { ok: true; snapshot: PersistedOrder; view: OrderView } | { ok: false; view: OrderView; reason: string };

type OrderSnapshot = ReturnType<typeof orderMachine.resolveState>;

function persist(snapshot: OrderSnapshot): PersistedOrder {
  const { value } = orderMachine.getPersistedSnapshot(snapshot) as unknown as PersistedOrder;
  return { value };
}

function topState(value: StateValue): string {
  return typeof value === 'string' ? value : (Object.keys(value)[0] ?? '');
}

function rehydrate(persisted: PersistedOrder): OrderSnapshot {
  if (!ORDER_STATES.includes(topState(persisted.value) as OrderState)) {
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
  (persisted) => viewOf(rehydrate(persisted).value),
);

function viewOf(value: StateValue): OrderView {
  const state = topState(value) as OrderState;
  const sub = typeof value === 'string' ? null : (Object.values(value)[0] as string);
  return { state, proposedBy: state === 'cancel_proposed' ? (sub as OrderParty) : null };
}

function refusal(view: OrderView, event: OrderEvent): string {
  const other = (p: OrderParty) => (p === 'seller' ? 'buyer' : 'seller');
  switch (event.type) {
    case 'ACCEPT':
      return `order is ${view.state}; it cannot be accepted`;
    case 'REJECT':
      return `order is ${view.state}; only a pending order can be rejected`;
    case 'COMPLETE':
      if (view.proposedBy)
        return `order is cancel_proposed; the ${other(view.proposedBy)} must answer the ${view.proposedBy}'s cancellation first`;
      return `order is ${view.state}; it cannot be completed`;
    case 'CANCEL':
      if (view.proposedBy === event.by)
        return `order is cancel_proposed by the ${event.by}; the ${other(event.by)} must confirm or the ${event.by} withdraw`;
      return `order is ${view.state}; only an accepted order can be canceled`;
    case 'WITHDRAW':
      if (view.proposedBy) return `order is cancel_proposed by the ${view.proposedBy}; only the ${view.proposedBy} may withdraw it`;
      return `order is ${view.state}; there is no cancellation to withdraw`;
  }
}

export const applyOrderEvent: (persisted: PersistedOrder, event: OrderEvent) => OrderResult = memoized(
  (persisted, event) => `${JSON.stringify(persisted.value)}${JSON.stringify(event)}`,
  apply,
);

function apply(persisted: PersistedOrder, event: OrderEvent): OrderResult {
  const snapshot = rehydrate(persisted);
  // can() is false both for "no such transition here" and for a final (done) snapshot.
  if (!snapshot.can(event)) {
    const view = orderView(persisted);
    return { ok: false, view, reason: refusal(view, event) };
  }
  const [next] = transition(orderMachine, snapshot, event);
  const saved = persist(next);
  return { ok: true, snapshot: saved, view: orderView(saved) };
}
