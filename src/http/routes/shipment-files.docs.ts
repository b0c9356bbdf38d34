import {
  eticketLinkBody,
  eticketsBody,
  fileAnswers,
  MAX_FILE_BYTES,
  MAX_UPLOAD_REQUEST_BYTES,
  transferVerificationBody,
} from '@fulfil/contract';
import { errorResponses } from '../openapi/error-responses.ts';
import { jsonSchemaOf } from '../openapi/json-schema.ts';
import { accepted202, COMMAND_ERRORS, commandHeaders, ok, toCommand, V9_ERRORS, v9 } from '../openapi/route-doc.ts';

const shipmentAndFile = (file: string) => ({
  type: 'object',
  properties: {
    id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'shipment id' },
    [file]: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'file id' },
  },
  required: ['id', file],
});
const shipmentId = {
  type: 'object',
  properties: { id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'shipment id' } },
  required: ['id'],
};

const MIB = 1024 * 1024;
const LIMITS = `Limits: ${MAX_FILE_BYTES / MIB} MiB a file (decoded), ${MAX_UPLOAD_REQUEST_BYTES / MIB} MiB a request body (413 beyond, before the body is read). The caller is admitted on its headers before the body is read (401 for a missing, unknown or revoked credential); a server checks a few uploads at once, a few per credential, and answers 503 with Retry-After when one waits too long; a body that arrives slower than the minimum rate (32 KiB/s by default) is cut off with 408.`;

const pdf = (description: string) => ({
  200: { description, content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } },
});
const fileBytes = (description: string) => ({
  200: {
    description,
    content: {
      'application/pdf': { schema: { type: 'string', format: 'binary' } },
      'image/png': { schema: { type: 'string', format: 'binary' } },
      'image/jpeg': { schema: { type: 'string', format: 'binary' } },
    },
  },
});

/** The reference of the file routes of shipments: shipment-files.ts. */
export const SHIPMENT_FILE_DOCS = {
  uploadEtickets: v9({
    tag: 'E-tickets',
    operationId: 'uploadEtickets',
    summary: 'Upload the e-tickets of an Eticket shipment (seller)',
    description: `Either one PDF holding all the order's tickets (a page each) or one single-page PDF per ticket, base64 in JSON (signed like any body). Each file is parsed as a PDF (not a PDF, truncated, encrypted: 400) and the pages must equal the order's quantity (400). Uploading again replaces the set; the replaced files stay listed in \`uploads\` but are no longer served. The same files again change nothing. ${LIMITS}`,
    params: shipmentId,
    headers: commandHeaders,
    body: jsonSchemaOf(eticketsBody),
    response: { ...ok(fileAnswers.shipmentWithEtickets, 'the shipment with its e-tickets'), ...accepted202 },
    errors: [...COMMAND_ERRORS, 408, 410],
    badRequest:
      'a file that is not base64, not a readable PDF, truncated or encrypted, or a set whose pages differ from the order quantity (`field` names the file)',
    links: toCommand,
  }),
  listEtickets: v9({
    tag: 'E-tickets',
    operationId: 'listEtickets',
    summary: 'List the e-tickets of a shipment (seller or buyer)',
    description: 'The current e-tickets, and every upload with who made it and when (replaced ones included, not served).',
    params: shipmentId,
    response: ok(fileAnswers.eticketList, 'the e-tickets'),
    errors: [400, ...V9_ERRORS, 404],
  }),
  getEticket: v9({
    tag: 'E-tickets',
    operationId: 'getEticket',
    summary: 'Download an e-ticket (seller or buyer)',
    description: "The PDF of a current e-ticket, byte for byte as uploaded. Anyone but the order's two parties is told 404.",
    params: shipmentAndFile('eticket_id'),
    response: pdf('the PDF'),
    errors: [400, ...V9_ERRORS, 404],
  }),
  eticketLink: v9({
    tag: 'E-tickets',
    operationId: 'createEticketLink',
    summary: 'A one-time download link of an e-ticket (seller or buyer)',
    description:
      'For the attendee: a URL that downloads the e-ticket once, without credentials, until it expires (default a day, `expires_in_minutes` up to a week). `eticket_id` may be left out when the shipment has one e-ticket. Only a hash of the token is stored; every link made and used is logged.',
    params: shipmentId,
    body: jsonSchemaOf(eticketLinkBody),
    bodyOptional: true,
    response: { 201: { description: 'the link', ...jsonSchemaOf(fileAnswers.eticketLink, 'output') } },
    errors: [400, ...V9_ERRORS, 404],
  }),
  uploadProof: v9({
    tag: 'E-tickets',
    operationId: 'createTransferVerification',
    summary: 'Prove a mobile transfer (seller of an XMobile, XMobileLink or XSeats shipment)',
    description: `Screenshots (PNG, JPEG) or a PDF showing the transfer, base64 in JSON; each is decoded to check it (400 otherwise). Proofs add up; each is an event \`shipment.transfer_verified\`. ${LIMITS}`,
    params: shipmentId,
    headers: commandHeaders,
    body: jsonSchemaOf(transferVerificationBody),
    response: { ...ok(fileAnswers.transferVerificationAnswer, 'the proof as stored'), ...accepted202 },
    errors: [...COMMAND_ERRORS, 408, 410],
    links: toCommand,
  }),
  listProofs: v9({
    tag: 'E-tickets',
    operationId: 'listTransferVerifications',
    summary: 'List the proofs of transfer of a shipment (seller or buyer)',
    description: 'Every proof, oldest first, with its files.',
    params: shipmentId,
    response: ok(fileAnswers.transferVerificationList, 'the proofs'),
    errors: [400, ...V9_ERRORS, 404],
  }),
  getProof: v9({
    tag: 'E-tickets',
    operationId: 'getTransferVerificationFile',
    summary: 'Download a file of a proof of transfer (seller or buyer)',
    description: "The file, byte for byte as uploaded. Anyone but the order's two parties is told 404.",
    params: shipmentAndFile('file_id'),
    response: fileBytes('the file'),
    errors: [400, ...V9_ERRORS, 404],
  }),
};

/** GET /eticket_downloads/:token: unsigned on purpose. */
const linkToken = {
  type: 'object',
  properties: { token: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$', description: 'the token of the link' } },
  required: ['token'],
};
const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });

export const DOWNLOAD_LINK_PAGE_DOC = {
  tags: ['E-tickets'],
  operationId: 'openEticketLink',
  summary: 'The page of a one-time link (no credentials; uses nothing up)',
  description:
    'An HTML page that says what the link downloads and until when, with a button that POSTs to the same address. GET and HEAD never use the link up, so a mail or chat scanner that fetches it first leaves it working. The page has no script and a restrictive Content-Security-Policy.',
  security: [],
  params: linkToken,
  response: { 200: html('the page of a working link'), 404: html('the link is unknown, expired or used (the same page for all three)') },
};

export const DOWNLOAD_LINK_DOC = {
  tags: ['E-tickets'],
  operationId: 'downloadEticketByLink',
  summary: 'Download an e-ticket with a one-time link (no credentials)',
  description:
    "Uses the link up and answers the PDF (`attachment`, `nosniff`). Works once, until the link expires; unknown, expired and used links are all 404 (an HTML page when the request accepts `text/html`, as the page's button does).",
  security: [],
  params: linkToken,
  response: { ...pdf('the PDF'), ...errorResponses([404, 503]) },
};
