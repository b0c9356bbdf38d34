import type { FastifyInstance } from 'fastify';
import { acceptBody, parseId, parseOrThrow } from '@fulfil/contract';
import type { Dispatch } from '../../queues/dispatcher.ts';
import { sendCommand } from '../send-command.ts';
import { ORDER_DOCS } from './orders.docs.ts';

export function orderRoutes(v9: FastifyInstance, deps: { dispatcher: Dispatch }): void {
  v9.post<{ Params: { id: string } }>('/orders/:id/accept', { schema: ORDER_DOCS.accept }, async (request, reply) => {
    const orderId = parseId(request.params.id, 'id');
    const body = parseOrThrow(acceptBody, request.body ?? {});
    return sendCommand(deps, request, reply, 'order.accept', { ...body, order_id: orderId });
  });
}
