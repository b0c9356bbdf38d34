import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../auth/caller.ts';
import { commandStatus } from '../../commands/command-status.ts';
import { NotFound } from '../../errors.ts';
import type { Database } from '../../db/client.ts';

/** Where a 202's Location points: the command's status, and its response once finished. */
export function commandRoutes(v9: FastifyInstance, deps: { database: Database }): void {
  v9.get<{ Params: { id: string } }>('/commands/:id', async (request) => {
    const found = await commandStatus(deps.database.db, request.params.id, callerOf(request).brokerageId);
    if (!found) throw new NotFound(`command ${request.params.id} not found`);
    return found;
  });
}
