import type { FastifyInstance } from 'fastify';
import { answerHoldBody, parseId, parseOrThrow, placeHoldBody, releaseHoldBody } from '@fulfil/contract';
import { callerOf } from '../../auth/caller.ts';
import type { Database } from '../../db/client.ts';
import type { Dispatch } from '../../queues/dispatcher.ts';
import { readHoldsOfOrder } from '../../read/holds.ts';
import { sendCommand } from '../send-command.ts';
import { HOLD_DOCS as DOCS } from './holds.docs.ts';

/** Holds on orders (docs/API.md §Holds): HTTP to commands and reads only. */
export function holdRoutes(v9: FastifyInstance, deps: { database: Database; dispatcher: Dispatch }): void {
  v9.post<{ Params: { id: string } }>('/orders/:id/holds', { schema: DOCS.place }, async (request, reply) => {
    const orderId = parseId(request.params.id, 'id');
    const body = parseOrThrow(placeHoldBody, request.body ?? {});
    return sendCommand(deps, request, reply, 'order.hold_place', { ...body, order_id: orderId });
  });
  v9.get<{ Params: { id: string } }>('/orders/:id/holds', { schema: DOCS.list }, async (request) => {
    return readHoldsOfOrder(deps.database, parseId(request.params.id, 'id'), callerOf(request));
  });
  v9.post<{ Params: { id: string } }>('/holds/:id/release', { schema: DOCS.release }, async (request, reply) => {
    const holdId = parseId(request.params.id, 'id');
    const body = parseOrThrow(releaseHoldBody, request.body ?? {});
    return sendCommand(deps, request, reply, 'hold.release', { ...body, hold_id: holdId });
  });
  v9.post<{ Params: { id: string } }>('/holds/:id/answer', { schema: DOCS.answer }, async (request, reply) => {
    const holdId = parseId(request.params.id, 'id');
    const body = parseOrThrow(answerHoldBody, request.body ?? {});
    return sendCommand(deps, request, reply, 'hold.answer', { ...body, hold_id: holdId });
  });
}
