import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../auth/caller.ts';
import { parseQuery } from '../../domain/query-params.ts';
import { parseId } from '@fulfil/contract';
import { EVENTS_DEFAULT_LIMIT, eventsQuery } from '../../read/events-query.ts';
import { readOrderEvents } from '../../read/read-order-events.ts';
import type { ReadDeps } from './order-read.ts';
import { ORDER_DOCS } from './orders.docs.ts';

export function orderEventRoutes(v9: FastifyInstance, deps: ReadDeps): void {
  v9.get<{ Params: { id: string } }>('/orders/:id/events', { schema: ORDER_DOCS.events }, async (request) => {
    const orderId = parseId(request.params.id, 'id');
    const query = parseQuery(eventsQuery, request.query);
    return readOrderEvents(deps.database.db, orderId, callerOf(request), {
      afterSeq: query.after_seq ?? 0,
      limit: query.limit ?? EVENTS_DEFAULT_LIMIT,
    });
  });
}
