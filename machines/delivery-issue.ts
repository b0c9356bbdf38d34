// Delivery issue lifecycle (docs/LIFECYCLE.md, "Delivery issues"): open → seller_responded |
// resolved | escalated; seller_responded → resolved | escalated; escalated → closed | resolved.
// Pure; the same rehydrate → apply → persist helpers as the order and shipment machines, so workers
// never touch xstate directly.
import { getInitialSnapshot, setup, transition, type StateValue } from 'xstate';
import { DELIVERY_ISSUE_STATES, type DeliveryIssueState } from '@fulfil/contract';
import { memoized } from './memo.ts';

export { DELIVERY_ISSUE_STATES, type DeliveryIssueState };

/** The states in which an order's issue is still undecided: one such issue per order. */
export const UNDECIDED_ISSUE_STATES = ['open', 'seller_responded', 'escalated'] as const satisfies readonly DeliveryIssueState[];

export type DeliveryIssueEvent =
  // The seller re-delivered (a reissue) or pointed at the evidence: either is an answer.
  | { type: 'RESPOND' }
  | { type: 'RESOLVE' }
  // The buyer escalates while the issue waits on either party; the system only when the seller
  // has not answered by respond_by.
  | { type: 'ESCALATE'; by: 'buyer' | 'system' }
  | { type: 'CLOSE' };

export const deliveryIssueMachine = setup({
  types: {} as { events: DeliveryIssueEvent },
  guards: { byBuyer: ({ event }) => event.type === 'ESCALATE' && event.by === 'buyer' },
}).createMachine({
  id: 'delivery_issue',
  initial: 'open',
  states: {
    open: { on: { RESPOND: 'seller_responded', RESOLVE: 'resolved', ESCALATE: 'escalated' } },
    // A second answer (another reissue) keeps it here: the buyer reads them all.
    seller_responded: {
      on: {
        RESPOND: { target: 'seller_responded', reenter: true },
        RESOLVE: 'resolved',
        ESCALATE: { guard: 'byBuyer', target: 'escalated' },
      },
    },
    // The buyer may still call it solved before an operator decides.
    escalated: { on: { CLOSE: 'closed', RESOLVE: 'resolved' } },
    resolved: { type: 'final' },
    closed: { type: 'final' },
  },
});

/** The JSON object stored in delivery_issues.snapshot (output of `getPersistedSnapshot`). */
export interface PersistedIssue {
  readonly status: string;
  readonly value: StateValue;
  readonly [key: string]: unknown;
}

export type IssueResult =
  { ok: true; snapshot: PersistedIssue; state: DeliveryIssueState } | { ok: false; state: DeliveryIssueState; reason: string };

type IssueSnapshot = ReturnType<typeof deliveryIssueMachine.resolveState>;

function persist(snapshot: IssueSnapshot): PersistedIssue {
  return deliveryIssueMachine.getPersistedSnapshot(snapshot) as unknown as PersistedIssue;
}

function rehydrate(persisted: PersistedIssue): IssueSnapshot {
  if (typeof persisted.value !== 'string' || !DELIVERY_ISSUE_STATES.includes(persisted.value as DeliveryIssueState)) {
    throw new Error(`persisted delivery issue has no valid state: ${JSON.stringify(persisted.value)}`);
  }
  return deliveryIssueMachine.resolveState({ value: persisted.value });
}

export const initialIssueSnapshot: () => PersistedIssue = memoized(
  () => '',
  () => persist(getInitialSnapshot(deliveryIssueMachine)),
);

export function issueState(persisted: PersistedIssue): DeliveryIssueState {
  return rehydrate(persisted).value as DeliveryIssueState;
}

function refusal(state: DeliveryIssueState, event: DeliveryIssueEvent): string {
  if (state === 'resolved' || state === 'closed') return `delivery issue is ${state}; nothing more can happen to it`;
  switch (event.type) {
    case 'RESPOND':
      return `delivery issue is ${state}; the seller answers an open issue (an escalated one waits for an operator)`;
    case 'RESOLVE':
      return `delivery issue is ${state}; it cannot be resolved`;
    case 'ESCALATE':
      if (event.by === 'system') return `delivery issue is ${state}; only an unanswered open issue is escalated when respond_by passes`;
      return `delivery issue is ${state}; it is already escalated`;
    case 'CLOSE':
      return `delivery issue is ${state}; an operator closes an escalated issue only`;
  }
}

export const applyIssueEvent: (persisted: PersistedIssue, event: DeliveryIssueEvent) => IssueResult = memoized(
  (persisted, event) => `${JSON.stringify(persisted.value)}${JSON.stringify(event)}`,
  apply,
);

function apply(persisted: PersistedIssue, event: DeliveryIssueEvent): IssueResult {
  const snapshot = rehydrate(persisted);
  const state = snapshot.value as DeliveryIssueState;
  // can() is false both for "no such transition here" and for a final (done) snapshot.
  if (!snapshot.can(event)) return { ok: false, state, reason: refusal(state, event) };
  const [next] = transition(deliveryIssueMachine, snapshot, event);
  const saved = persist(next);
  return { ok: true, snapshot: saved, state: next.value as DeliveryIssueState };
}
