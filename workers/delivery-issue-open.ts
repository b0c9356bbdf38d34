import { orderNow } from '../src/db/sql/lock-order.ts';
import { initialIssueSnapshot } from '../machines/index.ts';
import { DeliveryIssueConflict, openIssueCommand, parseOrThrow } from '@fulfil/contract';
import { appendOrderEvent } from '../src/db/sql/append-order-event.ts';
import { insertIssue, undecidedIssueOf } from '../src/db/sql/delivery-issues.ts';
import { issueEventJson, issueJson } from '../src/domain/delivery-issue-json.ts';
import {
  assertIssueAllowed,
  assertRoomFor,
  assertSeatsOfOrder,
  DEFAULT_ISSUE_RESPONSE_WINDOW_MS,
} from '../src/domain/delivery-issue-rules.ts';
import { openPartyOrder, shipmentFacts } from '../src/domain/order-commands.ts';
import { defineHandler } from './handler.ts';

/**
 * POST /v9/orders/:id/delivery_issues: the buyer says the tickets did not arrive. The issue is
 * open until the seller answers; respond_by (opened_at + DELIVERY_ISSUE_RESPONSE_WINDOW) arms the
 * escalation timer after the commit (timersOf).
 */
export default defineHandler({
  name: 'delivery_issue.open',
  parse: (payload) => parseOrThrow(openIssueCommand, payload, 'payload'),
  async handle(tx, { payload, actor, commandId }, ctx) {
    const order = await openPartyOrder(tx, payload.order_id, actor, { only: 'buyer', operation: 'open a delivery issue' });
    const now = orderNow(order);
    assertIssueAllowed(order, now);
    const undecided = await undecidedIssueOf(tx, order.id);
    if (undecided) throw new DeliveryIssueConflict(undecided.id);
    await assertRoomFor(tx, order.id, 'issue');
    const seats = payload.seats ?? [];
    await assertSeatsOfOrder(
      tx,
      order.id,
      seats.map((seat, i) => ({ seat, field: `seats.${i}` })),
    );
    const respondBy = new Date(now.getTime() + (ctx.deadlines.issueResponseWindowMs ?? DEFAULT_ISSUE_RESPONSE_WINDOW_MS));
    const { shipmentId, at } = shipmentFacts(order);
    const issue = await insertIssue(tx, {
      orderId: order.id,
      shipmentId,
      snapshot: initialIssueSnapshot(),
      reason: payload.reason,
      seats,
      notes: payload.notes ?? null,
      brokerageId: actor.brokerageId,
      userId: actor.userId,
      commandId,
      openedAt: now,
      respondBy,
    });
    const body = issueJson(issue);
    await appendOrderEvent(tx, {
      orderId: order.id,
      kind: 'delivery_issue_opened',
      shipmentId,
      from: at,
      to: at,
      details: { delivery_issue: issueEventJson(issue) },
      actor: { brokerageId: actor.brokerageId, userId: actor.userId, role: 'buyer' },
      commandId,
    });
    return { status: 201, body, timersOf: order.id };
  },
});
