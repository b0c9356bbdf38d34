import type { FastifyInstance } from 'fastify';
import {
  InvalidParams,
  issueStepBody,
  MAX_UPLOAD_REQUEST_BYTES,
  openIssueBody,
  parseId,
  parseOrThrow,
  reissueBody,
  respondIssueBody,
} from '@fulfil/contract';
import { callerOf } from '../../auth/caller.ts';
import type { Database } from '../../db/client.ts';
import { voidRefusedLabel } from '../../domain/label-purchase.ts';
import { prepareReissueLabel, prepareReissueNumber, type AirbillDeps } from '../../domain/airbill-upload.ts';
import { prepareEtickets } from '../../domain/file-upload.ts';
import type { Dispatch } from '../../queues/dispatcher.ts';
import { readDeliveryEvidence } from '../../read/delivery-evidence.ts';
import { deliveryEvidenceQuery } from '../../read/delivery-evidence-query.ts';
import { parseQuery } from '../../domain/query-params.ts';
import { readIssue, readIssuesOfOrder } from '../../read/delivery-issues.ts';
import { sendCommand } from '../send-command.ts';
import type { FileRouteDeps } from './shipment-files.ts';
import { DELIVERY_ISSUE_DOCS as DOCS } from './delivery-issues.docs.ts';

/** Delivery issues, the seller's reissue, and the evidence of delivery: HTTP to commands and reads only. */
export function deliveryIssueRoutes(
  v9: FastifyInstance,
  deps: { database: Database; dispatcher: Dispatch } & Pick<FileRouteDeps, 'files' | 'uploads' | 'inspect'> & Pick<AirbillDeps, 'carrier'>,
): void {
  v9.post<{ Params: { id: string } }>('/orders/:id/delivery_issues', { schema: DOCS.open }, async (request, reply) => {
    const orderId = parseId(request.params.id, 'id');
    const body = parseOrThrow(openIssueBody, request.body ?? {});
    return sendCommand(deps, request, reply, 'delivery_issue.open', { ...body, order_id: orderId });
  });
  v9.get<{ Params: { id: string } }>('/orders/:id/delivery_issues', { schema: DOCS.list }, async (request) => {
    return readIssuesOfOrder(deps.database, parseId(request.params.id, 'id'), callerOf(request));
  });
  v9.get<{ Params: { id: string } }>('/orders/:id/delivery_evidence', { schema: DOCS.evidence }, async (request) => {
    const query = parseQuery(deliveryEvidenceQuery, request.query);
    return readDeliveryEvidence(deps.database, parseId(request.params.id, 'id'), callerOf(request), query);
  });
  v9.get<{ Params: { id: string } }>('/delivery_issues/:id', { schema: DOCS.read }, async (request) => {
    return readIssue(deps.database, parseId(request.params.id, 'id'), callerOf(request));
  });
  v9.post<{ Params: { id: string } }>('/delivery_issues/:id/responses', { schema: DOCS.respond }, async (request, reply) => {
    const issueId = parseId(request.params.id, 'id');
    const body = parseOrThrow(respondIssueBody, request.body ?? {});
    return sendCommand(deps, request, reply, 'delivery_issue.respond', { ...body, issue_id: issueId });
  });
  v9.post<{ Params: { id: string } }>('/delivery_issues/:id/resolve', { schema: DOCS.resolve }, async (request, reply) => {
    const issueId = parseId(request.params.id, 'id');
    const body = parseOrThrow(issueStepBody, request.body ?? {});
    return sendCommand(deps, request, reply, 'delivery_issue.resolve', { ...body, issue_id: issueId });
  });
  v9.post<{ Params: { id: string } }>('/delivery_issues/:id/escalate', { schema: DOCS.escalate }, async (request, reply) => {
    const issueId = parseId(request.params.id, 'id');
    const body = parseOrThrow(issueStepBody, request.body ?? {});
    return sendCommand(deps, request, reply, 'delivery_issue.escalate', { ...body, issue_id: issueId });
  });
  // Files as the e-ticket upload takes them: the same body limit, upload slot and checks (prepareEtickets).
  const upload = { bodyLimit: MAX_UPLOAD_REQUEST_BYTES, onRequest: deps.uploads.admit, preParsing: deps.uploads.pace };
  v9.post<{ Params: { id: string } }>('/shipments/:id/reissue', { ...upload, schema: DOCS.reissue }, async (request, reply) => {
    const shipmentId = parseId(request.params.id, 'id');
    const { etickets, ...rest } = parseOrThrow(reissueBody, request.body ?? {});
    if (rest.mobile_transfer_type) {
      // The new electronic shipment is delivered as any of its type, once it exists (D-159).
      const other = (['tracking_number', 'buy_label', 'tickets', 'x_mobile_link'] as const).find((k) => rest[k] !== undefined);
      if (other || etickets) {
        throw InvalidParams.at(
          other ?? 'etickets',
          'mobile_transfer_type alone (transfer_source and notes beside it) switches a lost envelope to an electronic delivery; then upload its e-tickets or complete it with its link as any shipment of its type',
        );
      }
      return sendCommand(deps, request, reply, 'shipment.reissue', { ...rest, shipment_id: shipmentId });
    }
    const files = etickets
      ? (await prepareEtickets(deps, shipmentId, callerOf(request).brokerageId, { etickets }, { reissue: true })).etickets
      : undefined;
    if (rest.buy_label) {
      const other = (['tracking_number', 'tickets', 'x_mobile_link', 'transfer_source'] as const).find((k) => rest[k] !== undefined);
      if (other || files)
        throw InvalidParams.at(other ?? 'etickets', 'a bought label brings its own number: give buy_label alone (notes beside it)');
      const { tracking_number, tracker_id, ...label } = await prepareReissueLabel(
        { ...deps, log: request.log },
        shipmentId,
        callerOf(request).brokerageId,
      );
      const carrier = deps.carrier!;
      // A label bought for a command that refused it is refunded (D-153).
      const settle = async (result: { status: number; body: unknown }) => {
        if (result.status >= 400) await voidRefusedLabel({ ...deps, carrier, log: request.log }, shipmentId, label.label_id, result.body);
      };
      const command = { ...rest, shipment_id: shipmentId, tracking_number, ...(tracker_id ? { tracker_id } : {}), label };
      return sendCommand(deps, request, reply, 'shipment.reissue', command, settle, { ...rest, shipment_id: shipmentId });
    }
    const trackerId = rest.tracking_number
      ? await prepareReissueNumber({ ...deps, log: request.log }, shipmentId, callerOf(request).brokerageId, rest.tracking_number)
      : undefined;
    return sendCommand(deps, request, reply, 'shipment.reissue', {
      ...rest,
      shipment_id: shipmentId,
      ...(files ? { etickets: files } : {}),
      ...(trackerId ? { tracker_id: trackerId } : {}),
    });
  });
}
