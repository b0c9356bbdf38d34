import type { FastifyInstance } from 'fastify';
import type { Executor } from '../db/client.ts';
import { InvalidParams, NotFound } from '../errors.ts';
import { requireOpsToken } from './ops-auth.ts';
import { loadOrderView } from './order-view-data.ts';
import { renderOrderView } from './order-view-page.ts';

const SEARCH_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>orders · fulfil ops</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}</style></head><body><h1>Order view</h1>
<form method="get" action="/ops/orders"><label>order id <input name="id" size="10" autofocus></label> <button>show</button></form>
<p><a href="/ops/queues">queues</a></p></body></html>`;

function orderId(raw: unknown, field: string): number {
  const s = String(raw ?? '').trim();
  if (!/^\d{1,15}$/.test(s) || Number(s) < 1) throw new InvalidParams(`${field}: expected an order id (a positive integer)`, field);
  return Number(s);
}

/** /ops/orders/:id for people (OPS_TOKEN, Basic so a browser prompts); /ops/orders?id= is the page's search box. */
export function orderViewRoutes(app: FastifyInstance, deps: { database: { db: Executor }; opsToken: string | undefined }): void {
  const guard = requireOpsToken(deps.opsToken, 'basic');
  app.get('/ops/orders', { onRequest: guard }, async (request, reply) => {
    const given = (request.query as { id?: unknown }).id;
    if (given === undefined || given === '') return reply.type('text/html; charset=utf-8').send(SEARCH_PAGE);
    return reply.redirect(`/ops/orders/${orderId(given, 'id')}`, 303);
  });
  app.get('/ops/orders/:id', { onRequest: guard }, async (request, reply) => {
    const id = orderId((request.params as { id: string }).id, 'id');
    const data = await loadOrderView(deps.database.db, id);
    if (!data) throw new NotFound(`no order ${id}`);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(renderOrderView(data));
  });
}
