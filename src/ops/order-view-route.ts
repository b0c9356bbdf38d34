import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Executor, SqlRunner } from '../db/client.ts';
import { issuesOfOrder, responsesOf } from '../db/sql/delivery-issues.ts';
import { orderIssuesSection } from './delivery-issues-page.ts';
import { InvalidParams, NotFound } from '@fulfil/contract';
import type { FormGuard } from './form-guard.ts';
import { requireOpsToken, type FailureLimiter } from './ops-auth.ts';
import { loadOrderView } from './order-view-data.ts';
import { renderOrderView } from './order-view-page.ts';
import { renderOrderList } from './order-list-page.ts';
import { searchOrders } from './order-search.ts';

/** Any safe integer: sandbox ids run from 7,000,000,000,000,000 up (16 digits). */
function orderId(raw: unknown, field: string): number {
  const s = String(raw ?? '').trim();
  if (!/^\d{1,16}$/.test(s) || !Number.isSafeInteger(Number(s)) || Number(s) < 1)
    throw new InvalidParams(`${field}: expected an order id (a positive integer)`, field);
  return Number(s);
}

/**
 * /ops/orders lists and filters orders, /ops/orders/:id shows one, for people (OPS_TOKEN, Basic
 * so a browser prompts); /ops/orders?id= is the pages' "open by id" box.
 */
export function orderViewRoutes(
  app: FastifyInstance,
  deps: {
    database: { db: Executor } & SqlRunner;
    opsToken: string | undefined;
    failures?: FailureLimiter | undefined;
    write?: boolean;
    forms: FormGuard;
  },
): void {
  const guard = requireOpsToken(deps.opsToken, 'basic', deps.failures);
  const html = (reply: FastifyReply, status: number, page: string) =>
    reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page);
  // A person typed it: what is wrong is said on the page, with the form, never as the API's JSON.
  const problemPage = (reply: FastifyReply, params: Record<string, string | undefined>, err: unknown) => {
    if (!(err instanceof InvalidParams || err instanceof NotFound)) throw err;
    const problems = [err.message, ...(err instanceof InvalidParams ? err.more.map((p) => p.message) : [])];
    return html(reply, err.status, renderOrderList(params, { orders: [], next: undefined }, problems));
  };
  app.get('/ops/orders', { onRequest: guard }, async (request, reply) => {
    const { id: given, ...params } = request.query as Record<string, string | undefined>;
    try {
      if (given !== undefined && given !== '') return reply.redirect(`/ops/orders/${orderId(given, 'order id')}`, 303);
      return html(reply, 200, renderOrderList(params, await searchOrders(deps.database.db, params)));
    } catch (err) {
      return problemPage(reply, params, err);
    }
  });
  app.get('/ops/orders/:id', { onRequest: guard }, async (request, reply) => {
    try {
      const id = orderId((request.params as { id: string }).id, 'order id');
      const data = await loadOrderView(deps.database.db, id);
      if (!data) throw new NotFound(`there is no order ${id}`);
      // The order's delivery issues, with the close action on an escalated one (delivery-issues-page.ts).
      const rows = await issuesOfOrder(deps.database, id);
      const answers = await responsesOf(
        deps.database,
        rows.map((i) => i.id),
      );
      const issues = orderIssuesSection(rows, deps.write ?? false, answers, deps.forms.tokenFor(request, reply));
      return html(reply, 200, renderOrderView(data).replace('</body>', `${issues}</body>`));
    } catch (err) {
      return problemPage(reply, {}, err);
    }
  });
}
