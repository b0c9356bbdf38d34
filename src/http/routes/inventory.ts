import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../auth/caller.ts';
import { assertOfficeAccess } from '../../auth/roles.ts';
import { parseIndexQuery, type RawQuery } from '../../inventory/index-query.ts';
import { readInventoryPageBytes } from '../../inventory/read-inventory.ts';
import type { AppDeps } from '../app.ts';

export function inventoryRoutes(v9: FastifyInstance, deps: AppDeps): void {
  v9.get('/inventory', async (request, reply) => {
    // Validation comes first: its answers depend only on the query, so they reveal nothing about
    // which offices exist; the office check then answers 401 alike for foreign and missing ones.
    const query = parseIndexQuery(request.query as RawQuery);
    await assertOfficeAccess(deps.database.db, query.officeId, callerOf(request));
    // The body is JSON text built by Postgres; a string payload goes out as is.
    const body = await readInventoryPageBytes(deps.database, query);
    return reply.type('application/json; charset=utf-8').send(body);
  });
}
