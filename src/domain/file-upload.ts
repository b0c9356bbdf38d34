import { createHash } from 'node:crypto';
import {
  eticketsBody,
  fieldPath,
  Forbidden,
  InvalidParams,
  MAX_FILE_BYTES,
  NotFound,
  parseOrThrow,
  ShipmentReplaced,
  transferVerificationBody,
  type EticketsCommand,
  type TransferVerificationCommand,
} from '@fulfil/contract';
import type { SqlRunner } from '../db/database.ts';
import type { FileStore } from '../files/file-store.ts';
import { ParseQueueFull, type InspectPool } from '../files/inspect-pool.ts';
import { FileRefused, type FileFacts } from '../files/file-refused.ts';
import { inspectPdf, inspectProof } from '../files/inspect-file.ts';
import { PayloadTooLarge } from '../http-errors.ts';
import { countFileStored, countUploadRefused } from '../telemetry/file-metrics.ts';
import { assertAcceptsEtickets, assertAcceptsProof, assertReissuesEtickets, assertTicketPages } from './file-rules.ts';
import { orderRole } from '../auth/roles.ts';

/**
 * An upload before its command: the body is checked, each file decoded and parsed, the shipment's
 * rules checked as they stand, and only then are the files stored (content-addressed, so a
 * retry stores nothing twice). The command names the files by hash: bytes never travel through
 * Redis. The command checks the rules again under the order's lock and decides; a file it does
 * not attach is removed by housekeeping after the grace period.
 */
export interface UploadDeps {
  database: SqlRunner;
  files: FileStore;
  /** Where files are parsed (worker threads); absent: in this thread. */
  inspect?: InspectPool | undefined;
}

interface ShipmentStanding {
  id: number;
  type: string;
  state: string;
  quantity: number;
  role: 'seller' | 'buyer' | 'stranger';
  liveId: number | null;
}

/** How the caller stands to the shipment; the same refusals the command gives (404, 403, 410). */
async function standing(db: SqlRunner, shipmentId: number, brokerageId: number, operation: string): Promise<ShipmentStanding> {
  const [row] = await db.rows<Omit<ShipmentStanding, 'role'> & { sellerBrokerageId: number; buyerBrokerageId: number }>(
    `select s.id, s.type, s.state, o.quantity, f.brokerage_id as "sellerBrokerageId", o.buyer_brokerage_id as "buyerBrokerageId",
       case when s.replaced_by is null then s.id else (select l.id from shipments l where l.order_id = s.order_id and l.replaced_by is null) end as "liveId"
     from shipments s join orders o on o.id = s.order_id join offices f on f.id = o.seller_office_id
     where s.id = $1::bigint`,
    [shipmentId],
  );
  const role = row
    ? orderRole({ brokerageId }, { sellerBrokerageId: Number(row.sellerBrokerageId), buyerBrokerageId: Number(row.buyerBrokerageId) })
    : 'stranger';
  if (!row || role === 'stranger') throw new NotFound(`shipment ${shipmentId} not found`);
  if (role !== 'seller') throw new Forbidden(`only the seller may ${operation}`);
  const liveId = row.liveId === null ? null : Number(row.liveId);
  if (liveId !== null && liveId !== shipmentId) throw new ShipmentReplaced(liveId);
  return { ...row, role, liveId };
}

const NOT_BASE64 = /[^A-Za-z0-9+/=]/;

/** Whether text is padded standard base64; linear, without a pattern that recurses over 14 MB. */
function isBase64(text: string): boolean {
  if (text.length % 4 !== 0 || NOT_BASE64.test(text)) return false;
  const pad = text.indexOf('=');
  return pad < 0 || (pad >= text.length - 2 && /^=+$/.test(text.slice(pad)));
}

/** Strict base64 (RFC 4648 §4, no line breaks): Node's decoder alone skips what it does not know. */
function decode(text: string, field: string): Buffer {
  if (Math.floor((text.length * 3) / 4) > MAX_FILE_BYTES + 2) {
    countUploadRefused('too_large');
    throw new PayloadTooLarge(`${field}: a file may be at most ${MAX_FILE_BYTES} bytes (10 MiB)`);
  }
  if (!isBase64(text)) {
    countUploadRefused('bad_base64');
    throw new InvalidParams(`${field}: is not base64 (standard alphabet, padded, no line breaks)`, field);
  }
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length > MAX_FILE_BYTES) {
    countUploadRefused('too_large');
    throw new PayloadTooLarge(`${field}: a file may be at most ${MAX_FILE_BYTES} bytes (10 MiB)`);
  }
  return bytes;
}

async function inspect(bytes: Buffer, field: string, check: (b: Uint8Array) => Promise<FileFacts>): Promise<FileFacts> {
  try {
    return await check(bytes);
  } catch (err) {
    // No parser free in time: a 503 the caller retries, counted beside the file's own refusals.
    if (err instanceof ParseQueueFull) countUploadRefused('parse_queue');
    if (!(err instanceof FileRefused)) throw err;
    countUploadRefused(err.reason);
    throw new InvalidParams(`${field}: ${err.message}`, field);
  }
}

interface Checked {
  bytes: Buffer;
  sha256: string;
  facts: FileFacts;
}

/** Decodes and parses the files one at a time, keeping only their bytes: a parsed document is let go at once. */
async function checkAll(
  texts: readonly string[],
  field: (i: number) => string,
  check: (b: Uint8Array) => Promise<FileFacts>,
): Promise<Checked[]> {
  const checked: Checked[] = [];
  for (const [i, text] of texts.entries()) {
    const bytes = decode(text, field(i));
    const facts = await inspect(bytes, field(i), check);
    checked.push({ bytes, facts, sha256: createHash('sha256').update(bytes).digest('hex') });
  }
  return checked;
}

async function storeAll(deps: UploadDeps, files: readonly Checked[]): Promise<void> {
  for (const f of files) {
    const { created } = await deps.files.put(f.sha256, f.bytes, f.facts);
    countFileStored(deps.files.kind, f.bytes.length, created);
  }
}

/** Sizes first: a file over the limit is 413 before any other check reads it. */
function assertSizes(items: unknown, key: string, field: string): void {
  if (!Array.isArray(items)) return;
  items.forEach((item, i) => {
    const text = (item as Record<string, unknown> | null)?.[key];
    if (typeof text === 'string' && Math.floor((text.length * 3) / 4) > MAX_FILE_BYTES + 2) {
      countUploadRefused('too_large');
      throw new PayloadTooLarge(`${fieldPath(field, i, key)}: a file may be at most ${MAX_FILE_BYTES} bytes (10 MiB)`);
    }
  });
}

/** POST /v9/shipments/:id/etickets: checked and stored files, as the command that attaches them. */
export async function prepareEtickets(
  deps: UploadDeps,
  shipmentId: number,
  brokerageId: number,
  body: unknown,
  /** A reissue's files (POST /v9/shipments/:id/reissue): the shipment is completed, its command checks the rest. */
  opts: { reissue?: boolean } = {},
): Promise<EticketsCommand> {
  assertSizes((body as { etickets?: unknown } | null)?.etickets, 'eticket', 'etickets');
  const parsed = parseOrThrow(eticketsBody, body);
  const shipment = await standing(deps.database, shipmentId, brokerageId, opts.reissue ? 'reissue tickets' : 'upload e-tickets');
  if (opts.reissue) assertReissuesEtickets(shipment);
  else assertAcceptsEtickets(shipment);
  const files = await checkAll(
    parsed.etickets.map((e) => e.eticket),
    (i) => fieldPath('etickets', i, 'eticket'),
    (b) => (deps.inspect ? deps.inspect.inspect('pdf', b) : inspectPdf(b)),
  );
  try {
    assertTicketPages(
      shipment.quantity,
      files.map((f) => f.facts.pages ?? 0),
    );
  } catch (err) {
    countUploadRefused('page_count');
    throw err;
  }
  await storeAll(deps, files);
  return {
    shipment_id: shipmentId,
    etickets: parsed.etickets.map((e, i) => ({
      sha256: files[i]!.sha256,
      ...(e.seat !== undefined ? { seat: e.seat } : {}),
      ...(e.barcode !== undefined ? { barcode: e.barcode } : {}),
    })),
  };
}

/** POST /v9/shipments/:id/transfer_verifications: checked and stored proofs, as their command. */
export async function prepareTransferVerification(
  deps: UploadDeps,
  shipmentId: number,
  brokerageId: number,
  body: unknown,
): Promise<TransferVerificationCommand> {
  assertSizes((body as { files?: unknown } | null)?.files, 'file', 'files');
  const parsed = parseOrThrow(transferVerificationBody, body);
  const shipment = await standing(deps.database, shipmentId, brokerageId, 'prove a transfer');
  assertAcceptsProof(shipment);
  const files = await checkAll(
    parsed.files.map((f) => f.file),
    (i) => fieldPath('files', i, 'file'),
    (b) => (deps.inspect ? deps.inspect.inspect('proof', b) : inspectProof(b)),
  );
  await storeAll(deps, files);
  return {
    shipment_id: shipmentId,
    files: parsed.files.map((f, i) => ({ sha256: files[i]!.sha256, ...(f.note !== undefined ? { note: f.note } : {}) })),
  };
}

/**
 * One PDF (a mailed shipment's label, uploaded or bought): decoded, checked and limited as
 * e-tickets are (any number of pages), then stored. Its hash is what the command carries.
 */
export async function checkAndStorePdf(
  deps: UploadDeps,
  content: string | Buffer,
  field: string,
): Promise<{ sha256: string; pages: number }> {
  const bytes = typeof content === 'string' ? decode(content, field) : content;
  const facts = await inspect(bytes, field, (b) => (deps.inspect ? deps.inspect.inspect('pdf', b) : inspectPdf(b)));
  const file = { bytes, facts, sha256: createHash('sha256').update(bytes).digest('hex') };
  await storeAll(deps, [file]);
  return { sha256: file.sha256, pages: facts.pages ?? 1 };
}
