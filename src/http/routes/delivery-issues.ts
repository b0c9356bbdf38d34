import type { FastifyInstance } from 'fastify';
import {
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
import { prepareReissueNumber, type AirbillDeps } from '../../domain/airbill-upload.ts';
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
    const files = etickets
      ? (await prepareEtickets(deps, shipmentId, callerOf(request).brokerageId, { etickets }, { reissue: true })).etickets
      : undefined;
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
