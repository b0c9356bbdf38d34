import type { FastifyInstance } from 'fastify';
import { NotFound, parseId } from '@fulfil/contract';
import type { Database } from '../db/client.ts';
import { fileSetsOf } from '../db/sql/file-sets.ts';
import type { FileStore } from '../files/file-store.ts';
import { requireOpsToken, type FailureLimiter } from './ops-auth.ts';

/** The operators' link to a mailed shipment's label, from the delivery issue page and the order view (D-179). */
export function opsLabelPath(shipmentId: number): string {
  return `/ops/shipments/${shipmentId}/airbill`;
}

/**
 * `GET /ops/shipments/:id/airbill`: the shipment's latest label, from the file store, opened in
 * the browser (inline) for an operator deciding a delivery issue. Any shipment id, a replaced one
 * included: to an operator an old label is evidence too (the parties' route answers 410 there).
 */
export function opsLabelRoute(
  app: FastifyInstance,
  deps: { database: Database; files: FileStore; opsToken: string | undefined; failures: FailureLimiter | undefined },
): void {
  const guard = requireOpsToken(deps.opsToken, 'basic', deps.failures);
  app.get<{ Params: { id: string } }>('/ops/shipments/:id/airbill', { onRequest: guard }, async (request, reply) => {
    const shipmentId = parseId(request.params.id, 'id');
    const file = (await fileSetsOf(deps.database, shipmentId, 'airbill')).at(-1)?.files[0];
    if (!file) throw new NotFound(`shipment ${shipmentId} has no label`);
    const bytes = await deps.files.get(file.sha256);
    if (!bytes) throw new Error(`file ${file.sha256} of the label of shipment ${shipmentId} is missing from the ${deps.files.kind} store`);
    return reply
      .type('application/pdf')
      .header('content-disposition', `inline; filename="airbill-${shipmentId}.pdf"`)
      .header('etag', `"${file.sha256}"`)
      .header('cache-control', 'private, no-store')
      .header('x-content-type-options', 'nosniff')
      .send(bytes);
  });
}
