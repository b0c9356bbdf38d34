import type { FastifyInstance } from 'fastify';
import { completeBody, updateCommandFromBody, parseId, parseOrThrow } from '@fulfil/contract';
import type { Dispatch } from '../../queues/dispatcher.ts';
import { sendCommand } from '../send-command.ts';
import { SHIPMENT_DOCS } from './shipments.docs.ts';

export function shipmentRoutes(v9: FastifyInstance, deps: { dispatcher: Dispatch }): void {
  v9.put<{ Params: { id: string } }>('/shipments/:id', { schema: SHIPMENT_DOCS.update }, async (request, reply) => {
    const shipmentId = parseId(request.params.id, 'id');
    return sendCommand(deps, request, reply, 'shipment.update', updateCommandFromBody(shipmentId, request.body));
  });

  // Complete is PUT in the contract; existing clients also POST it (docs/API.md §Shipments).
  v9.route<{ Params: { id: string } }>({
    method: ['PUT', 'POST'],
    url: '/shipments/:id/complete',
    schema: SHIPMENT_DOCS.complete,
    handler: async (request, reply) => {
      const shipmentId = parseId(request.params.id, 'id');
      const body = parseOrThrow(completeBody, request.body ?? {});
      return sendCommand(deps, request, reply, 'shipment.complete', { ...body, shipment_id: shipmentId });
    },
  });
}
