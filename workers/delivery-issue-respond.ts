import { parseOrThrow, respondIssueCommand } from '@fulfil/contract';
import { insertResponse, responsesOf } from '../src/db/sql/delivery-issues.ts';
import { appendIssueEvent, openIssue, stepIssueBy } from '../src/domain/delivery-issue-access.ts';
import { issueJson, responseJson } from '../src/domain/delivery-issue-json.ts';
import { assertRoomFor } from '../src/domain/delivery-issue-rules.ts';
import { defineHandler } from './handler.ts';

/**
 * POST /v9/delivery_issues/:id/responses: the seller answers without re-delivering ("delivered,
 * see the evidence"); the issue becomes seller_responded and its escalation timer is let go.
 */
export default defineHandler({
  name: 'delivery_issue.respond',
  parse: (payload) => parseOrThrow(respondIssueCommand, payload, 'payload'),
  async handle(tx, { payload, actor, commandId }) {
    const { order, issue } = await openIssue(tx, payload.issue_id, actor, { only: 'seller', operation: 'respond to a delivery issue' });
    const { after } = await stepIssueBy(tx, issue, { type: 'RESPOND' });
    await assertRoomFor(tx, order.id, 'answer');
    const response = await insertResponse(tx, {
      issueId: issue.id,
      orderId: order.id,
      shipmentId: order.shipment?.id ?? null,
      kind: 'response',
      notes: payload.notes,
      brokerageId: actor.brokerageId,
      userId: actor.userId,
      commandId,
      at: after.respondedAt!,
    });
    const responses = await responsesOf(tx, [issue.id]);
    await appendIssueEvent(tx, {
      issue: after,
      kind: 'delivery_issue_responded',
      shipment: order.shipment,
      by: { brokerageId: actor.brokerageId, userId: actor.userId, role: 'seller', commandId },
      details: { response: responseJson(response) },
    });
    return { status: 200, body: issueJson(after, responses), timersOf: order.id };
  },
});
