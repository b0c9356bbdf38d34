import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../auth/caller.ts';
import { commandStatus } from '../../commands/command-status.ts';
import { NotFound } from '@fulfil/contract';
import type { Database } from '../../db/client.ts';
import { COMMAND_DOCS } from './commands.docs.ts';

/**
 * Every command id the service hands out is letters, digits and hyphens (c-<uuid>, k-<hex>).
 * Anything else cannot name a command, so it is answered 404 before Postgres sees it: a NUL
 * byte, say, would otherwise come back from Postgres as an encoding error, not as "not found".
 */
const COMMAND_ID = /^[A-Za-z0-9-]{1,100}$/;

/** Where a 202's Location points: the command's status, and its response once finished. */
export function commandRoutes(v9: FastifyInstance, deps: { database: Database }): void {
  v9.get<{ Params: { id: string } }>('/commands/:id', { schema: COMMAND_DOCS.status }, async (request) => {
    const { id } = request.params;
    if (!COMMAND_ID.test(id)) throw new NotFound('command not found');
    const found = await commandStatus(deps.database.db, id, callerOf(request).brokerageId);
    if (!found) throw new NotFound(`command ${id} not found`);
    return found;
  });
}
