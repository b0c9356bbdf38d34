import type { FastifyInstance } from 'fastify';
import type { Executor } from '../db/client.ts';
import { InvalidParams, NotFound } from '@fulfil/contract';
import { requireOpsToken, type FailureLimiter } from './ops-auth.ts';
import { loadOrderView } from './order-view-data.ts';
import { renderOrderView } from './order-view-page.ts';
import { renderOrderList } from './order-list-page.ts';
import { searchOrders } from './order-search.ts';

function orderId(raw: unknown, field: string): number {
  const s = String(raw ?? '').trim();
  if (!/^\d{1,15}$/.test(s) || Number(s) < 1) throw new InvalidParams(`${field}: expected an order id (a positive integer)`, field);
  return Number(s);
}

/**
 * /ops/orders lists and filters orders, /ops/orders/:id shows one, for people (OPS_TOKEN, Basic
 * so a browser prompts); /ops/orders?id= is the pages' "open by id" box.
 */
export function orderViewRoutes(
  app: FastifyInstance,
  deps: { database: { db: Executor }; opsToken: string | undefined; failures?: FailureLimiter | undefined },
): void {
  const guard = requireOpsToken(deps.opsToken, 'basic', deps.failures);
  app.get('/ops/orders', { onRequest: guard }, async (request, reply) => {
    const { id: given, ...params } = request.query as Record<string, string | undefined>;
    if (given !== undefined && given !== '') return reply.redirect(`/ops/orders/${orderId(given, 'id')}`, 303);
    const page = await searchOrders(deps.database.db, params);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(renderOrderList(params, page));
  });
  app.get('/ops/orders/:id', { onRequest: guard }, async (request, reply) => {
    const id = orderId((request.params as { id: string }).id, 'id');
    const data = await loadOrderView(deps.database.db, id);
    if (!data) throw new NotFound(`no order ${id}`);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(renderOrderView(data));
  });
}
