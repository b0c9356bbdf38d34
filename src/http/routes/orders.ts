import type { FastifyInstance } from 'fastify';
import { acceptBody } from '../../domain/order-accept-input.ts';
import { parseId, parseOrThrow } from '../../domain/validation.ts';
import type { AppDeps } from '../app.ts';
import { sendCommand } from '../send-command.ts';

export function orderRoutes(v9: FastifyInstance, deps: AppDeps): void {
  v9.post<{ Params: { id: string } }>('/orders/:id/accept', async (request, reply) => {
    const orderId = parseId(request.params.id, 'id');
    const body = parseOrThrow(acceptBody, request.body ?? {});
    return sendCommand(deps, request, reply, 'order.accept', { ...body, order_id: orderId });
  });
}
