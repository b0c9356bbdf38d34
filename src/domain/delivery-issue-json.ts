import type { IssueRow, ResponseRow } from '../db/sql/delivery-issues.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** An answer of the seller as both parties read it. */
export function responseJson(r: ResponseRow) {
  return {
    id: r.id,
    kind: r.kind,
    notes: r.notes,
    at: r.at.toISOString(),
    ...(r.kind === 'reissue'
      ? { etickets_set_id: r.setId, tickets: r.tickets ?? null, transfer_source: r.transferSource, x_mobile_link: r.xMobileLink }
      : {}),
  };
}

/** A delivery issue as both parties read it (docs/API.md §Delivery issues). */
export function issueJson(i: IssueRow, responses: readonly ResponseRow[] = []) {
  return {
    id: i.id,
    order_id: i.orderId,
    shipment_id: i.shipmentId,
    state: i.state,
    reason: i.reason,
    seats: i.seats,
    notes: i.notes,
    opened_at: i.openedAt.toISOString(),
    respond_by: i.respondBy.toISOString(),
    responded_at: iso(i.respondedAt),
    escalated_at: iso(i.escalatedAt),
    escalated_by: i.escalatedBy,
    resolved_at: iso(i.resolvedAt),
    closed_at: iso(i.closedAt),
    outcome: i.outcome,
    close_notes: i.closeNotes,
    resolution_notes: i.resolutionNotes,
    escalation_notes: i.escalationNotes,
    responses: responses.filter((r) => r.issueId === i.id).map(responseJson),
    livemode: i.livemode,
  };
}
export type IssueJson = ReturnType<typeof issueJson>;

/**
 * The issue as its events carry it: without the answers (the step's own answer is beside it), and
 * without its mode, which the event carries beside its data (and which events written before had not).
 */
export function issueEventJson(i: IssueRow) {
  const { responses: _all, livemode: _mode, ...issue } = issueJson(i);
  return issue;
}
