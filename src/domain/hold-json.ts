import type { HoldActor, HoldRow } from '../db/sql/holds.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const actorJson = (a: HoldActor) => ({ party: a.party, brokerage_id: a.brokerageId, user_id: a.userId, operator: a.operator });

/** A hold as both parties read it (docs/API.md §Holds; holdAnswers.hold in @fulfil/contract). */
export function holdJson(h: HoldRow) {
  return {
    id: h.id,
    order_id: h.orderId,
    reason: h.reason,
    notes: h.notes,
    handle: h.handle,
    seats: h.seats,
    state: h.releasedAt ? ('released' as const) : ('active' as const),
    placed_by: actorJson(h.placedBy),
    placed_at: h.placedAt.toISOString(),
    release_at: iso(h.releaseAt),
    released_at: iso(h.releasedAt),
    released_by: h.releasedBy && actorJson(h.releasedBy),
    release_why: h.releaseWhy,
    answer_notes: h.answerNotes,
    answered_at: iso(h.answeredAt),
    deadline_extended_ms: h.deadlineExtendedMs,
    livemode: h.livemode,
  };
}

/** The hold as an event carries it: its answer less `livemode` (the event has its own). */
export function holdEventJson(h: HoldRow) {
  const { livemode: _livemode, ...rest } = holdJson(h);
  return rest;
}
