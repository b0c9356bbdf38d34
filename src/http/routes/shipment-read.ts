import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../auth/caller.ts';
import { parseId } from '@fulfil/contract';
import { readShipment } from '../../read/read-shipment.ts';
import type { ReadDeps } from './order-read.ts';

export function shipmentReadRoutes(v9: FastifyInstance, deps: ReadDeps): void {
  v9.get<{ Params: { id: string } }>('/shipments/:id', async (request) => {
    return readShipment(deps.database.db, parseId(request.params.id, 'id'), callerOf(request));
  });
}
