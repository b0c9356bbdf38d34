import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../auth/caller.ts';
import type { RawQuery } from '../../inventory/index-query.ts';
import { listInventoryPage } from '../../inventory/list-inventory.ts';
import type { Database } from '../../db/client.ts';
import { INVENTORY_DOCS } from './inventory.docs.ts';

export function inventoryRoutes(v9: FastifyInstance, deps: { database: Database }): void {
  v9.get('/inventory', { schema: INVENTORY_DOCS.list }, async (request, reply) => {
    // The body is JSON text built by Postgres; a string or Buffer payload goes out as is.
    const body = await listInventoryPage(deps.database, callerOf(request), request.query as RawQuery);
    return reply.type('application/json; charset=utf-8').send(body);
  });
}
