import type { FastifyInstance } from 'fastify';
import type { Executor } from '../db/client.ts';
import { InvalidParams, NotFound } from '../errors.ts';
import { requireOpsToken } from './ops-auth.ts';
import { loadOrderView } from './order-view-data.ts';
import { renderOrderView } from './order-view-page.ts';

function orderId(raw: unknown, field: string): number {
  const s = String(raw ?? '').trim();
  if (!/^\d{1,15}$/.test(s) || Number(s) < 1) throw new InvalidParams(`${field}: expected an order id (a positive integer)`, field);
  return Number(s);
}

/** /ops/orders/:id for people (OPS_TOKEN, Basic so a browser prompts); /ops/orders?id= is the page's search box. */
export function orderViewRoutes(app: FastifyInstance, deps: { db: Executor; opsToken: string | undefined }): void {
  const guard = requireOpsToken(deps.opsToken, 'basic');
  app.get('/ops/orders', { onRequest: guard }, async (request, reply) => {
    const id = orderId((request.query as { id?: unknown }).id, 'id');
    return reply.redirect(`/ops/orders/${id}`, 303);
  });
  app.get('/ops/orders/:id', { onRequest: guard }, async (request, reply) => {
    const id = orderId((request.params as { id: string }).id, 'id');
    const data = await loadOrderView(deps.db, id);
    if (!data) throw new NotFound(`no order ${id}`);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(renderOrderView(data));
  });
}
