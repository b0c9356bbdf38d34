import type { FastifyInstance, FastifyReply } from 'fastify';
import { closeIssueCommand, parseId, AppError, InvalidParams } from '@fulfil/contract';
import type { Database } from '../db/client.ts';
import { issueById, responsesOf } from '../db/sql/delivery-issues.ts';
import type { Dispatch } from '../queues/dispatcher.ts';
import { evidenceOf } from '../read/delivery-evidence.ts';
import { closeIssueAsOperator } from './close-issue.ts';
import { renderEscalatedIssues, type EscalatedIssue } from './delivery-issues-page.ts';
import type { FormGuard } from './form-guard.ts';
import { loadOrderMailing } from './order-view-mailed.ts';
import { requireOpsToken, type FailureLimiter } from './ops-auth.ts';

const PAGE = 100;

const ISSUE_MODES = ['live', 'test', 'all'] as const;
type IssueMode = (typeof ISSUE_MODES)[number];

/** ?mode= of the page: live by default; anything unknown is refused rather than widened. */
function issueMode(raw: unknown): IssueMode {
  if (raw === undefined || raw === '') return 'live';
  if (!ISSUE_MODES.includes(raw as IssueMode)) throw new InvalidParams(`mode: one of ${ISSUE_MODES.join(', ')}`, 'mode');
  return raw as IssueMode;
}

/**
 * The escalated issues, oldest first (delivery_issues_escalated_idx), each with the seller's
 * answers, its order's evidence and, for a mailed order, the envelope (carrier, tracking, address, label).
 */
export async function escalatedIssues(
  database: Pick<Database, 'rows' | 'db'>,
  limit = PAGE,
  mode: IssueMode = 'live',
): Promise<EscalatedIssue[]> {
  // Live issues only unless asked (D-202): a sandbox's escalations are not an operator's work.
  const ids = await database.rows<{ id: string }>(
    `select i.id from delivery_issues i join orders o on o.id = i.order_id
     where i.state = 'escalated' and ($2::text = 'all' or o.livemode = ($2::text = 'live'))
     order by i.escalated_at, i.id limit $1::int`,
    [limit, mode],
  );
  const out: EscalatedIssue[] = [];
  for (const { id } of ids) {
    const issue = await issueById(database, Number(id));
    if (!issue) continue;
    out.push({
      issue,
      responses: await responsesOf(database, [issue.id]),
      evidence: await evidenceOf(database, issue.orderId),
      mailing: await loadOrderMailing(database.db, issue.orderId),
    });
  }
  return out;
}

/**
 * /ops/delivery_issues: escalated issues for people (OPS_TOKEN, Basic), and their close action
 * (a form POST, only with OPS_WRITE, as the queue board's actions; never from another site).
 */
export function deliveryIssueOpsRoutes(
  app: FastifyInstance,
  deps: {
    database: Database;
    dispatcher?: Dispatch | undefined;
    opsToken: string | undefined;
    failures?: FailureLimiter | undefined;
    write: boolean;
    forms: FormGuard;
  },
): void {
  const guard = requireOpsToken(deps.opsToken, 'basic', deps.failures);
  const html = (reply: FastifyReply, status: number, page: string) =>
    reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page);
  const write = deps.write && deps.dispatcher !== undefined;
  app.get('/ops/delivery_issues', { onRequest: guard }, async (request, reply) => {
    const formToken = deps.forms.tokenFor(request, reply);
    let mode: IssueMode;
    try {
      mode = issueMode((request.query as Record<string, unknown>).mode);
    } catch (err) {
      if (!(err instanceof InvalidParams)) throw err;
      return html(reply, 400, renderEscalatedIssues([], { write, formToken, problem: err.message }));
    }
    return html(reply, 200, renderEscalatedIssues(await escalatedIssues(deps.database, PAGE, mode), { write, formToken, mode }));
  });
  // The close is a browser form: its own scope reads url-encoded bodies (nothing else under /ops takes one).
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16_384 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    closeRoute(scope);
  });
  function closeRoute(scope: FastifyInstance) {
    scope.post<{ Params: { id: string } }>('/ops/delivery_issues/:id/close', { onRequest: guard }, async (request, reply) => {
      const formToken = deps.forms.tokenFor(request, reply);
      const page = async (status: number, said: { notice?: string; problem?: string }) =>
        html(reply, status, renderEscalatedIssues(await escalatedIssues(deps.database), { write, formToken, ...said }));
      if (!write) return page(403, { problem: 'closing an issue here needs OPS_WRITE=true' });
      const form = (request.body ?? {}) as Record<string, string | undefined>;
      // Only from this service's page, with the session's form token (D-162): never another site's.
      const refused = deps.forms.refusal(request, form);
      if (refused) return page(403, { problem: refused });
      try {
        const payload = closeIssueCommand.parse({
          issue_id: parseId(request.params.id, 'id'),
          outcome: form.outcome,
          ...(form.notes ? { notes: form.notes } : {}),
          ...(form.operator ? { operator: form.operator } : {}),
        });
        const done = await closeIssueAsOperator({ database: deps.database, dispatcher: deps.dispatcher! }, payload);
        if (!done) return page(404, { problem: `there is no delivery issue ${payload.issue_id}` });
        const result = done.result;
        if (!result) return page(202, { notice: `issue ${payload.issue_id}: the close is queued (command ${done.commandId})` });
        if (result.status !== 200) {
          const body = result.body as { errors?: Array<{ message: string }> };
          return page(result.status, { problem: `issue ${payload.issue_id}: ${body.errors?.[0]?.message ?? 'refused'}` });
        }
        return page(200, { notice: `issue ${payload.issue_id} closed: ${payload.outcome}` });
      } catch (err) {
        if (err instanceof AppError) return page(err.status, { problem: err.message });
        if (err instanceof Error && err.name === 'ZodError')
          return page(400, { problem: 'outcome: choose seller_at_fault, buyer_at_fault or no_fault' });
        throw err;
      }
    });
  }
}
