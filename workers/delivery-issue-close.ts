import { closeIssueCommand, parseOrThrow } from '@fulfil/contract';
import { responsesOf } from '../src/db/sql/delivery-issues.ts';
import { appendIssueEvent, lockIssueForOperator, stepIssueBy } from '../src/domain/delivery-issue-access.ts';
import { issueJson } from '../src/domain/delivery-issue-json.ts';
import { defineHandler } from './handler.ts';

/** The operator's reason on a close's event: the service acted, no party (docs/WEBHOOKS.md). */
export const OPERATOR_CLOSE_REASON = 'operator_closed';

/**
 * An operator closes an escalated issue with its outcome (the ops order view, `fulfil issues
 * close`). No party acts: the event's actor is the system, with the operator's reason.
 */
export default defineHandler({
  name: 'delivery_issue.close',
  parse: (payload) => parseOrThrow(closeIssueCommand, payload, 'payload'),
  async handle(tx, { payload }) {
    const issue = await lockIssueForOperator(tx, payload.issue_id);
    const { after } = await stepIssueBy(tx, issue, { type: 'CLOSE' }, { outcome: payload.outcome, closeNotes: payload.notes ?? null });
    const [live] = await tx.rows<{ id: string; type: string; state: string }>(
      `select id, type, state from shipments where order_id = $1::bigint and replaced_by is null`,
      [issue.orderId],
    );
    const responses = await responsesOf(tx, [issue.id]);
    await appendIssueEvent(tx, {
      issue: after,
      kind: 'delivery_issue_closed',
      shipment: live ? { ...live, id: Number(live.id) } : null,
      by: { reason: OPERATOR_CLOSE_REASON },
      details: { outcome: payload.outcome, notes: payload.notes ?? null, operator: payload.operator ?? null },
    });
    return { status: 200, body: issueJson(after, responses) };
  },
});
