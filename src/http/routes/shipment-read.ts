import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../auth/caller.ts';
import { parseId } from '@fulfil/contract';
import { readShipment } from '../../read/read-shipment.ts';
import type { ReadDeps } from './order-read.ts';
import { SHIPMENT_DOCS } from './shipments.docs.ts';

export function shipmentReadRoutes(v9: FastifyInstance, deps: ReadDeps): void {
  v9.get<{ Params: { id: string } }>('/shipments/:id', { schema: SHIPMENT_DOCS.read }, async (request) => {
    return readShipment(deps.database.db, parseId(request.params.id, 'id'), callerOf(request), deps.database);
  });
}
