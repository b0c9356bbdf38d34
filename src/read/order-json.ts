import { orderView, type PersistedOrder } from '../../machines/index.ts';
import type { OrderState, RejectionReason } from '@fulfil/contract';

/** The order's columns its answers show. */
export interface OrderFactsRow {
  state: string;
  snapshot: unknown;
  inHandOn: string | null;
  deliverBy: Date | null;
  rejectionReason: string | null;
  rejectionNotes: string | null;
  /** false for a test order (drizzle/0029): its objects answer the same. */
  livemode: boolean;
  testClockId: number | null;
}

export type OrderFacts = ReturnType<typeof orderFactsJson>;

/**
 * What GET /v9/orders/:id and the order commands' answers say of an order beyond its id: its
 * state, its deadline and how it ended (shipmentAnswers.orderFacts in @fulfil/contract).
 */
export function orderFactsJson(row: OrderFactsRow) {
  // Who proposed a cancellation lives in the machine's state (a substate), not in a column.
  const proposedBy = row.state === 'cancel_proposed' && row.snapshot ? orderView(row.snapshot as PersistedOrder).proposedBy : null;
  return {
    state: row.state as OrderState,
    in_hand_on: row.inHandOn,
    deliver_by: row.deliverBy ? row.deliverBy.toISOString() : null,
    cancel_proposed_by: proposedBy,
    rejection_reason: row.rejectionReason as RejectionReason | null,
    rejection_notes: row.rejectionNotes,
    livemode: row.livemode,
    test_clock: row.testClockId,
  };
}
