import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../auth/caller.ts';
import type { Database } from '../../db/client.ts';
import { parseId } from '@fulfil/contract';
import { readOrder } from '../../read/read-order.ts';
import { ORDER_DOCS } from './orders.docs.ts';

export interface ReadDeps {
  database: Pick<Database, 'db' | 'rows'>;
}

/** Reads go straight to Postgres: nothing changes, so there is nothing to queue. */
export function orderReadRoutes(v9: FastifyInstance, deps: ReadDeps): void {
  v9.get<{ Params: { id: string } }>('/orders/:id', { schema: ORDER_DOCS.read }, async (request) => {
    return readOrder(deps.database.db, parseId(request.params.id, 'id'), callerOf(request));
  });
}
