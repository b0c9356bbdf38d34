import type { FastifyInstance } from 'fastify';
import { MAX_UPLOAD_REQUEST_BYTES, parseId, parseOrThrow, trackingEventBody } from '@fulfil/contract';
import { callerOf } from '../../auth/caller.ts';
import { prepareAirbill, prepareTrackingNumber, type AirbillDeps } from '../../domain/airbill-upload.ts';
import { voidRefusedLabel } from '../../domain/label-purchase.ts';
import type { Dispatch } from '../../queues/dispatcher.ts';
import { listTrackingEvents, readAirbill } from '../../read/mailed-shipment.ts';
import { trackingEventsQuery } from '../../read/tracking-events-query.ts';
import { parseQuery } from '../../domain/query-params.ts';
import { sendCommand } from '../send-command.ts';
import type { UploadAdmission } from '../upload-admission.ts';
import { MAILED_DOCS as DOCS } from './mailed-shipments.docs.ts';

export interface MailedRouteDeps extends AirbillDeps {
  dispatcher: Dispatch;
  uploads: UploadAdmission;
}

/** The label, the tracking number and the tracking events of mailed shipments (docs/API.md §Mailed tickets). */
export function mailedShipmentRoutes(v9: FastifyInstance, deps: MailedRouteDeps): void {
  // As the e-ticket upload: this route alone of these takes a large body, a slot taken first.
  const upload = { bodyLimit: MAX_UPLOAD_REQUEST_BYTES, onRequest: deps.uploads.admit, preParsing: deps.uploads.pace };

  v9.post<{ Params: { id: string } }>('/shipments/:id/airbill', { ...upload, schema: DOCS.giveAirbill }, async (request, reply) => {
    const shipmentId = parseId(request.params.id, 'id');
    const command = await prepareAirbill({ ...deps, log: request.log }, shipmentId, callerOf(request).brokerageId, request.body);
    if (command.purchase && command.purchase.reason !== 'bought before') {
      request.log.info(
        { shipmentId, labelId: command.purchase.label_id, service: command.purchase.service },
        'label bought through the carrier account',
      );
    }
    const bought = command.purchase && command.purchase.reason !== 'bought before' ? command.purchase : undefined;
    const carrier = deps.carrier;
    // A label bought for a command that refused it is refunded (D-153).
    const settle =
      bought && carrier
        ? async (result: { status: number; body: unknown }) => {
            if (result.status >= 400)
              await voidRefusedLabel({ ...deps, carrier, log: request.log }, shipmentId, bought.label_id, result.body);
          }
        : undefined;
    // A purchase is asked as such: the label the carrier sold (or had sold) is not the caller's to match.
    const asked = command.purchase ? { shipment_id: shipmentId, by: command.by, purchase: 'carrier account' } : undefined;
    return sendCommand(deps, request, reply, 'shipment.airbill', command, settle, asked);
  });

  v9.get<{ Params: { id: string } }>('/shipments/:id/airbill', { schema: DOCS.getAirbill }, async (request, reply) => {
    const shipmentId = parseId(request.params.id, 'id');
    const { sha256, bytes } = await readAirbill(deps, shipmentId, callerOf(request).brokerageId);
    return reply
      .type('application/pdf')
      .header('content-disposition', `attachment; filename="airbill-${shipmentId}.pdf"`)
      .header('etag', `"${sha256}"`)
      .header('cache-control', 'private, no-store')
      .header('x-content-type-options', 'nosniff')
      .send(bytes);
  });

  v9.put<{ Params: { id: string } }>('/shipments/:id/tracking', { schema: DOCS.setTracking }, async (request, reply) => {
    const shipmentId = parseId(request.params.id, 'id');
    const command = await prepareTrackingNumber({ ...deps, log: request.log }, shipmentId, callerOf(request).brokerageId, request.body);
    return sendCommand(deps, request, reply, 'shipment.tracking_number', command);
  });

  v9.post<{ Params: { id: string } }>('/shipments/:id/tracking_events', { schema: DOCS.addTrackingEvent }, async (request, reply) => {
    const shipmentId = parseId(request.params.id, 'id');
    const body = parseOrThrow(trackingEventBody, request.body ?? {});
    return sendCommand(deps, request, reply, 'shipment.tracking_event', { shipment_id: shipmentId, ...body });
  });

  v9.get<{ Params: { id: string } }>('/shipments/:id/tracking_events', { schema: DOCS.listTrackingEvents }, async (request) => {
    const query = parseQuery(trackingEventsQuery, request.query);
    return listTrackingEvents(deps.database, parseId(request.params.id, 'id'), callerOf(request).brokerageId, query);
  });
}
