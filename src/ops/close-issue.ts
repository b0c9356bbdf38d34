import { requestFingerprint, type CloseIssueCommand, type CommandResult } from '@fulfil/contract';
import type { SqlRunner } from '../db/database.ts';
import type { Dispatch } from '../queues/dispatcher.ts';

/**
 * An operator closes an escalated delivery issue (the ops page, `fulfil issues close`): the
 * command `delivery_issue.close`, kept under the brokerage of the buyer who opened the issue (every
 * command row belongs to one), its event's actor the system (D-124). Undefined: no such issue.
 */
export async function closeIssueAsOperator(
  deps: { database: SqlRunner; dispatcher: Dispatch },
  payload: CloseIssueCommand,
): Promise<{ commandId: string; result: CommandResult | undefined } | undefined> {
  const [owner] = await deps.database.rows<{ brokerageId: string }>(
    `select opened_by_brokerage_id as "brokerageId" from delivery_issues where id = $1::bigint`,
    [payload.issue_id],
  );
  if (!owner) return undefined;
  const outcome = await deps.dispatcher.dispatch({
    name: 'delivery_issue.close',
    actor: { brokerageId: Number(owner.brokerageId), userId: null, via: 'upstream' },
    payload,
    requestHash: requestFingerprint('delivery_issue.close', payload),
  });
  return { commandId: outcome.commandId, result: outcome.kind === 'done' ? outcome.result : undefined };
}
