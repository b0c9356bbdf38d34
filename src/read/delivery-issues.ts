import { NotFound } from '@fulfil/contract';
import type { Caller } from '../auth/caller.ts';
import type { Database } from '../db/client.ts';
import { issueById, issuesOfOrder, responsesOf } from '../db/sql/delivery-issues.ts';
import { issueJson } from '../domain/delivery-issue-json.ts';
import { readableOrder } from './order-parties.ts';

type Reader = Pick<Database, 'db' | 'rows'>;

/** GET /v9/orders/:id/delivery_issues: both parties; anyone else 404. */
export async function readIssuesOfOrder(database: Reader, orderId: number, caller: Pick<Caller, 'brokerageId'>) {
  await readableOrder(database.db, orderId, caller);
  const issues = await issuesOfOrder(database, orderId);
  const responses = await responsesOf(
    database,
    issues.map((i) => i.id),
  );
  return { delivery_issues: issues.map((i) => issueJson(i, responses)) };
}

/** GET /v9/delivery_issues/:id: both parties of its order; anyone else 404 (its existence is not revealed). */
export async function readIssue(database: Reader, issueId: number, caller: Pick<Caller, 'brokerageId'>) {
  const missing = new NotFound(`delivery issue ${issueId} not found`);
  const issue = await issueById(database, issueId);
  if (!issue) throw missing;
  try {
    await readableOrder(database.db, issue.orderId, caller);
  } catch (err) {
    throw err instanceof NotFound ? missing : err;
  }
  return issueJson(issue, await responsesOf(database, [issue.id]));
}
