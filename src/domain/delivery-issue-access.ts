import { applyIssueEvent, type DeliveryIssueEvent } from '../../machines/index.ts';
import { InvalidTransition, NotFound, type Actor, type DeliveryIssueEventKind, type DeliveryIssueState } from '@fulfil/contract';
import type { SqlTx } from '../db/database.ts';
import { appendOrderEvent } from '../db/sql/append-order-event.ts';
import { issueById, orderOfIssue, stepIssue, type IssueRow, type IssueStep } from '../db/sql/delivery-issues.ts';
import { issueEventJson } from './delivery-issue-json.ts';
import { ORDER_CLOCK_COLUMNS, type LockedPartyOrder } from '../db/sql/lock-order.ts';
import { openPartyOrder } from './order-commands.ts';

/**
 * Locks the order of an issue a party acts on and reads the issue under that lock. A stranger or
 * a missing issue → 404 naming the issue (its existence is not revealed); the other party → 403.
 */
export async function openIssue(
  tx: SqlTx,
  issueId: number,
  actor: Actor,
  opts: { only?: 'seller' | 'buyer'; operation: string },
): Promise<{ order: LockedPartyOrder; issue: IssueRow }> {
  const missing = new NotFound(`delivery issue ${issueId} not found`);
  const orderId = await orderOfIssue(tx, issueId);
  if (orderId === undefined) throw missing;
  let order: LockedPartyOrder;
  try {
    order = await openPartyOrder(tx, orderId, actor, opts);
  } catch (err) {
    throw err instanceof NotFound ? missing : err;
  }
  return { order, issue: (await issueById(tx, issueId))! };
}

/** Locks the order of an issue an operator acts on (no party): undefined when there is no such issue. */
export async function lockIssueForOperator(tx: SqlTx, issueId: number): Promise<IssueRow> {
  const orderId = await orderOfIssue(tx, issueId);
  if (orderId === undefined) throw new NotFound(`delivery issue ${issueId} not found`);
  // The order's clock too (lock-order.ts): the operator's step is stamped at the order's time.
  await tx.rows(`select o.id, ${ORDER_CLOCK_COLUMNS} from orders o where o.id = $1::bigint for update`, [orderId]);
  return (await issueById(tx, issueId))!;
}

/** The issue after one event of its machine, written; a refused event is a 422 saying why. */
export async function stepIssueBy(
  tx: SqlTx,
  issue: IssueRow,
  event: DeliveryIssueEvent,
  extra: Omit<IssueStep, 'state' | 'snapshot' | 'at'> & { at?: Date } = {},
): Promise<{ before: DeliveryIssueState; after: IssueRow }> {
  const result = applyIssueEvent(issue.snapshot, event);
  if (!result.ok) throw new InvalidTransition(`${result.reason} (issue ${issue.id})`);
  const after = await stepIssue(tx, issue.id, { ...extra, at: extra.at ?? new Date(), state: result.state, snapshot: result.snapshot });
  return { before: issue.state, after };
}

/**
 * Appends the event of an issue's step: a party's (with its command) or the service's (the
 * escalation timer, an operator), naming the order's live shipment as it is. `details` carries
 * the issue as it now reads without its answers (`delivery_issue`) and what the step changed
 * (the new `response`, the buyer's `notes`, the `outcome`): an event's size does not grow with
 * the issue's history (D-173).
 */
export async function appendIssueEvent(
  tx: SqlTx,
  facts: {
    issue: IssueRow;
    kind: DeliveryIssueEventKind;
    shipment: { id: number; type: string; state: string } | null;
    by: { brokerageId: number; userId: number | null; role: 'seller' | 'buyer'; commandId: string } | { reason: string };
    details?: Record<string, unknown>;
  },
): Promise<void> {
  const at = facts.shipment ? { type: facts.shipment.type, state: facts.shipment.state } : null;
  const base = {
    orderId: facts.issue.orderId,
    kind: facts.kind,
    shipmentId: facts.shipment?.id ?? null,
    from: at,
    to: at,
    details: { delivery_issue: issueEventJson(facts.issue), ...facts.details },
  };
  const by = facts.by;
  await appendOrderEvent(
    tx,
    'reason' in by
      ? { ...base, actor: { type: 'system', reason: by.reason } }
      : { ...base, actor: { brokerageId: by.brokerageId, userId: by.userId, role: by.role }, commandId: by.commandId },
  );
}
