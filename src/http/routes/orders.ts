import type { FastifyInstance } from 'fastify';
import { acceptBody, cancelBody, orderUpdateBody, parseId, parseOrThrow, rejectBody } from '@fulfil/contract';
import type { Dispatch } from '../../queues/dispatcher.ts';
import { sendCommand } from '../send-command.ts';
import { ORDER_DOCS } from './orders.docs.ts';

export function orderRoutes(v9: FastifyInstance, deps: { dispatcher: Dispatch }): void {
  v9.post<{ Params: { id: string } }>('/orders/:id/accept', { schema: ORDER_DOCS.accept }, async (request, reply) => {
    const orderId = parseId(request.params.id, 'id');
    const body = parseOrThrow(acceptBody, request.body ?? {});
    return sendCommand(deps, request, reply, 'order.accept', { ...body, order_id: orderId });
  });
  v9.post<{ Params: { id: string } }>('/orders/:id/reject', { schema: ORDER_DOCS.reject }, async (request, reply) => {
    const orderId = parseId(request.params.id, 'id');
    const body = parseOrThrow(rejectBody, request.body ?? {});
    return sendCommand(deps, request, reply, 'order.reject', { ...body, order_id: orderId });
  });
  v9.post<{ Params: { id: string } }>('/orders/:id/cancel', { schema: ORDER_DOCS.cancel }, async (request, reply) => {
    const orderId = parseId(request.params.id, 'id');
    const body = parseOrThrow(cancelBody, request.body ?? {});
    return sendCommand(deps, request, reply, 'order.cancel', { ...body, order_id: orderId });
  });
  v9.post<{ Params: { id: string } }>('/orders/:id/confirm_receipt', { schema: ORDER_DOCS.confirmReceipt }, async (request, reply) => {
    const orderId = parseId(request.params.id, 'id');
    return sendCommand(deps, request, reply, 'order.confirm_receipt', { order_id: orderId });
  });
  v9.delete<{ Params: { id: string } }>('/orders/:id/cancel', { schema: ORDER_DOCS.withdrawCancel }, async (request, reply) => {
    const orderId = parseId(request.params.id, 'id');
    return sendCommand(deps, request, reply, 'order.withdraw_cancel', { order_id: orderId });
  });
  v9.put<{ Params: { id: string } }>('/orders/:id', { schema: ORDER_DOCS.update }, async (request, reply) => {
    const orderId = parseId(request.params.id, 'id');
    const body = parseOrThrow(orderUpdateBody, request.body ?? {});
    return sendCommand(deps, request, reply, 'order.update', { ...body, order_id: orderId });
  });
}
