import { escalateIssueCommand, parseOrThrow } from '@fulfil/contract';
import { responsesOf } from '../src/db/sql/delivery-issues.ts';
import { appendIssueEvent, openIssue, stepIssueBy } from '../src/domain/delivery-issue-access.ts';
import { issueJson } from '../src/domain/delivery-issue-json.ts';
import { defineHandler } from './handler.ts';

/** POST /v9/delivery_issues/:id/escalate: the buyer asks an operator to decide; the issue is escalated. */
export default defineHandler({
  name: 'delivery_issue.escalate',
  parse: (payload) => parseOrThrow(escalateIssueCommand, payload, 'payload'),
  async handle(tx, { payload, actor, commandId }) {
    const { order, issue } = await openIssue(tx, payload.issue_id, actor, { only: 'buyer', operation: 'escalate a delivery issue' });
    const { after } = await stepIssueBy(
      tx,
      issue,
      { type: 'ESCALATE', by: 'buyer' },
      { escalatedBy: 'buyer', escalationNotes: payload.notes ?? null },
    );
    const responses = await responsesOf(tx, [issue.id]);
    await appendIssueEvent(tx, {
      issue: after,
      kind: 'delivery_issue_escalated',
      shipment: order.shipment,
      by: { brokerageId: actor.brokerageId, userId: actor.userId, role: 'buyer', commandId },
      details: { notes: payload.notes ?? null },
    });
    return { status: 200, body: issueJson(after, responses), timersOf: order.id };
  },
});
