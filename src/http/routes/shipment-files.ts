import { withMode } from '../../read/answer-mode.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_UPLOAD_REQUEST_BYTES, NotFound, parseId } from '@fulfil/contract';
import { callerOf } from '../../auth/caller.ts';
import type { SqlRunner } from '../../db/database.ts';
import { recordDownload } from '../../db/sql/file-downloads.ts';
import { createDownloadLink, describeDownloadLink, redeemDownloadLink } from '../../domain/download-links.ts';
import { linkTokenHint } from '../../link-tokens.ts';
import { goneLinkPage, linkPage } from './download-link-page.ts';
import { prepareEtickets, prepareTransferVerification } from '../../domain/file-upload.ts';
import type { FileStore } from '../../files/file-store.ts';
import type { InspectPool } from '../../files/inspect-pool.ts';
import { MethodNotAllowed } from '../../http-errors.ts';
import type { Dispatch } from '../../queues/dispatcher.ts';
import { listEtickets, listTransferVerifications, readShipmentFile } from '../../read/shipment-files.ts';
import { sendCommand } from '../send-command.ts';
import type { UploadAdmission } from '../upload-admission.ts';
import { DOWNLOAD_LINK_DOC, DOWNLOAD_LINK_PAGE_DOC, SHIPMENT_FILE_DOCS as DOCS } from './shipment-files.docs.ts';

export interface FileRouteDeps {
  database: SqlRunner;
  dispatcher: Dispatch;
  files: FileStore;
  uploads: UploadAdmission;
  inspect?: InspectPool | undefined;
}

const EXTENSION = { 'application/pdf': 'pdf', 'image/png': 'png', 'image/jpeg': 'jpg' } as const;

function sendFile(reply: FastifyReply, name: string, file: { sha256: string; mediaType: keyof typeof EXTENSION }, bytes: Buffer) {
  return reply
    .type(file.mediaType)
    .header('content-disposition', `attachment; filename="${name}.${EXTENSION[file.mediaType]}"`)
    .header('etag', `"${file.sha256}"`)
    .header('cache-control', 'private, no-store')
    .header('x-content-type-options', 'nosniff')
    .send(bytes);
}

/**
 * `…/etickets/link` is the link's path (POST), not an e-ticket id: any other method on it is 405
 * with Allow, before authentication, as on every other path (src/http/method-not-allowed.ts).
 */
async function linkIsPostOnly(request: FastifyRequest<{ Params: { id: string; eticket_id: string } }>): Promise<void> {
  if (request.params.eticket_id === 'link') {
    throw new MethodNotAllowed(`${request.method} is not allowed on ${request.url.split('?')[0]}; allowed: POST`, ['POST']);
  }
}

/**
 * The files of shipments: uploads are checked and stored here (src/domain/file-upload.ts), then
 * attached by a command; reads and downloads answer the two parties only.
 */
export function shipmentFileRoutes(v9: FastifyInstance, deps: FileRouteDeps): void {
  // Upload routes alone take bodies this large; the caller is admitted and a slot taken before
  // the body is read, and a body arriving too slowly is cut off (upload-admission.ts).
  const upload = { bodyLimit: MAX_UPLOAD_REQUEST_BYTES, onRequest: deps.uploads.admit, preParsing: deps.uploads.pace };

  v9.post<{ Params: { id: string } }>('/shipments/:id/etickets', { ...upload, schema: DOCS.uploadEtickets }, async (request, reply) => {
    const shipmentId = parseId(request.params.id, 'id');
    const command = await prepareEtickets(deps, shipmentId, callerOf(request).brokerageId, request.body);
    return sendCommand(deps, request, reply, 'shipment.etickets', command);
  });

  v9.get<{ Params: { id: string } }>('/shipments/:id/etickets', { schema: DOCS.listEtickets }, async (request) => {
    return listEtickets(deps.database, parseId(request.params.id, 'id'), callerOf(request).brokerageId);
  });

  v9.get<{ Params: { id: string; eticket_id: string } }>(
    '/shipments/:id/etickets/:eticket_id',
    { schema: DOCS.getEticket, onRequest: linkIsPostOnly },
    async (request, reply) => {
      const shipmentId = parseId(request.params.id, 'id');
      const fileId = parseId(request.params.eticket_id, 'eticket_id');
      const caller = callerOf(request);
      const { file, bytes } = await readShipmentFile(deps, shipmentId, caller.brokerageId, 'etickets', fileId);
      // The evidence of delivery (GET /v9/orders/:id/delivery_evidence) lists each download.
      await recordDownload(deps.database, { fileId, shipmentId, brokerageId: caller.brokerageId, userId: caller.userId });
      return sendFile(reply, `eticket-${fileId}`, file, bytes);
    },
  );

  v9.post<{ Params: { id: string } }>('/shipments/:id/etickets/link', { schema: DOCS.eticketLink }, async (request, reply) => {
    const shipmentId = parseId(request.params.id, 'id');
    const caller = callerOf(request);
    const link = await createDownloadLink(deps.database, shipmentId, caller, request.body);
    request.log.info(
      { shipmentId, eticketId: link.eticketId, expiresAt: link.expiresAt, brokerageId: caller.brokerageId },
      'e-ticket download link made',
    );
    const url = `${request.protocol}://${request.host}${link.path}`;
    return reply.status(201).send(withMode({ url, eticket_id: link.eticketId, expires_at: link.expiresAt.toISOString() }, link));
  });

  v9.post<{ Params: { id: string } }>(
    '/shipments/:id/transfer_verifications',
    { ...upload, schema: DOCS.uploadProof },
    async (request, reply) => {
      const shipmentId = parseId(request.params.id, 'id');
      const command = await prepareTransferVerification(deps, shipmentId, callerOf(request).brokerageId, request.body);
      return sendCommand(deps, request, reply, 'shipment.transfer_verification', command);
    },
  );

  v9.get<{ Params: { id: string } }>('/shipments/:id/transfer_verifications', { schema: DOCS.listProofs }, async (request) => {
    return listTransferVerifications(deps.database, parseId(request.params.id, 'id'), callerOf(request).brokerageId);
  });

  v9.get<{ Params: { id: string; file_id: string } }>(
    '/shipments/:id/transfer_verifications/:file_id',
    { schema: DOCS.getProof },
    async (request, reply) => {
      const shipmentId = parseId(request.params.id, 'id');
      const fileId = parseId(request.params.file_id, 'file_id');
      const { file, bytes } = await readShipmentFile(deps, shipmentId, callerOf(request).brokerageId, 'transfer_verification', fileId);
      return sendFile(reply, `transfer-verification-${fileId}`, file, bytes);
    },
  );
}

/**
 * The one-time links: outside /v9 and its signatures (they work without credentials). GET (and
 * HEAD) answer a page that uses nothing up, since mail and chat scanners fetch links before the
 * person does; the page's button POSTs to the same path, which uses the link up and sends the
 * file. The token never reaches a log line: the request log and this route's line carry its hint.
 */
export function downloadLinkRoutes(deps: Pick<FileRouteDeps, 'database' | 'files'>) {
  return async (scope: FastifyInstance) => {
    // The page's form posts an empty urlencoded body (some browsers send a media type only): taken and ignored.
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 }, (_request, _body, done) => done(null, undefined));

    scope.get<{ Params: { token: string } }>('/eticket_downloads/:token', { schema: DOWNLOAD_LINK_PAGE_DOC }, async (request, reply) => {
      const link = await describeDownloadLink(deps.database, request.params.token);
      return link ? linkPage(reply, link) : goneLinkPage(reply);
    });

    scope.post<{ Params: { token: string } }>('/eticket_downloads/:token', { schema: DOWNLOAD_LINK_DOC }, async (request, reply) => {
      let redeemed: Awaited<ReturnType<typeof redeemDownloadLink>>;
      try {
        redeemed = await redeemDownloadLink(deps, request.params.token, request.ip);
      } catch (err) {
        // The page's own button (a browser) is answered with a page; an API client with the error body.
        if (err instanceof NotFound && request.headers.accept?.includes('text/html')) return goneLinkPage(reply);
        throw err;
      }
      const { file, bytes } = redeemed;
      request.log.info(
        { eticketId: file.id, shipmentId: file.shipmentId, link: linkTokenHint(request.params.token), from: request.ip },
        'e-ticket downloaded with a one-time link',
      );
      return sendFile(reply, `eticket-${file.id}`, { sha256: file.sha256, mediaType: 'application/pdf' }, bytes);
    });
  };
}
