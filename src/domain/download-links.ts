import { randomBytes } from 'node:crypto';
import { eticketLinkBody, InvalidParams, NotFound, parseOrThrow } from '@fulfil/contract';
import type { SqlRunner } from '../db/database.ts';
import { fileSetsOf, type SetFile } from '../db/sql/file-sets.ts';
import type { FileStore } from '../files/file-store.ts';
import { DOWNLOAD_LINK_PATH, linkTokenHash as hashOf } from '../link-tokens.ts';
import { partyOfShipment, servableFile } from '../read/shipment-files.ts';

const DEFAULT_MINUTES = 24 * 60;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The time of a link's order (D-208): its test clock's, else the wall clock's. A link is made,
 * expires and is used on its order's clock, so advancing the clock past expires_at expires it.
 * `o` is the link's order; fulfil_now() cannot serve, as no order lock sets the clock here.
 */
const ORDER_NOW = `coalesce((select c.frozen_time from test_clocks c where c.id = o.test_clock_id), now())`;

/**
 * POST /v9/shipments/:id/etickets/link: a one-time link to one e-ticket of the current set, for
 * the attendee. The token is 32 random bytes (base64url); only its sha256 is stored, so the
 * database cannot give a working link away. It expires, and the first download uses it up.
 */
export async function createDownloadLink(
  db: SqlRunner,
  shipmentId: number,
  caller: { brokerageId: number; userId: number | null },
  body: unknown,
): Promise<{ token: string; path: string; eticketId: number; expiresAt: Date; livemode: boolean }> {
  const parsed = parseOrThrow(eticketLinkBody, body ?? {});
  const { orderId, livemode } = await partyOfShipment(db, shipmentId, caller.brokerageId);
  const current = (await fileSetsOf(db, shipmentId, 'etickets')).filter((s) => s.replacedAt === null);
  const files = current.flatMap((s) => s.files);
  if (files.length === 0) throw new NotFound(`shipment ${shipmentId} has no e-tickets`);
  let file: SetFile | undefined;
  if (parsed.eticket_id === undefined) {
    if (files.length > 1) throw new InvalidParams(`eticket_id: required, the shipment has ${files.length} e-tickets`, 'eticket_id');
    file = files[0];
  } else {
    file = servableFile(current, parsed.eticket_id);
    if (!file) throw new NotFound(`e-ticket ${parsed.eticket_id} of shipment ${shipmentId} not found`);
  }
  const token = randomBytes(32).toString('base64url');
  const [link] = await db.rows<{ expiresAt: Date }>(
    `insert into file_links (token_sha256, file_id, brokerage_id, user_id, created_at, expires_at)
     select $1, $2::bigint, $3::bigint, $4::bigint, t.now, t.now + make_interval(mins => $5::int)
     from (select ${ORDER_NOW} as now from orders o where o.id = $6::bigint) t
     returning expires_at as "expiresAt"`,
    [hashOf(token), file!.id, caller.brokerageId, caller.userId, parsed.expires_in_minutes ?? DEFAULT_MINUTES, orderId],
  );
  const expiresAt = new Date(link!.expiresAt);
  return { token, path: `${DOWNLOAD_LINK_PATH}/${token}`, eticketId: file!.id, expiresAt, livemode };
}

/** What a working link's page says of it; a link unknown, expired or used has none. */
export interface LinkDescription {
  eticketId: number;
  orderOid: string;
  seat: string | null;
  bytes: number;
  pages: number | null;
  expiresAt: Date;
}

/**
 * GET /eticket_downloads/:token (and HEAD): what the link would download, read without using it
 * up. Mail and chat scanners fetch every link before the person clicks; only the page's POST
 * (redeemDownloadLink) takes the file.
 */
export async function describeDownloadLink(db: SqlRunner, token: string): Promise<LinkDescription | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const [row] = await db.rows<{
    eticketId: number;
    orderOid: string;
    seat: string | null;
    bytes: number;
    pages: number | null;
    expiresAt: Date;
  }>(
    `select f.id as "eticketId", o.oid as "orderOid", f.seat, sf.bytes, sf.pages, l.expires_at as "expiresAt"
     from file_links l join shipment_files f on f.id = l.file_id join shipment_file_sets s on s.id = f.set_id
       join orders o on o.id = s.order_id join stored_files sf on sf.sha256 = f.sha256
     where l.token_sha256 = $1 and l.used_at is null and l.expires_at > ${ORDER_NOW} and s.replaced_at is null`,
    [hashOf(token)],
  );
  if (!row) return undefined;
  return { ...row, eticketId: Number(row.eticketId), bytes: Number(row.bytes), expiresAt: new Date(row.expiresAt) };
}

/**
 * POST /eticket_downloads/:token: uses the link up (one statement: only one download can take
 * it) and answers the file. A link unknown, expired or used is 404, the same for all three.
 */
export async function redeemDownloadLink(
  deps: { database: SqlRunner; files: FileStore },
  token: string,
  usedBy: string,
): Promise<{ file: { id: number; sha256: string; shipmentId: number }; bytes: Buffer }> {
  const gone = new NotFound('this download link is unknown, expired or already used');
  if (!TOKEN_SHAPE.test(token)) throw gone;
  const [row] = await deps.database.rows<{ id: number; sha256: string; shipmentId: number }>(
    `update file_links l set used_at = ${ORDER_NOW}, used_by = $2
     from shipment_files f join shipment_file_sets s on s.id = f.set_id join orders o on o.id = s.order_id
     where l.token_sha256 = $1 and l.used_at is null and l.expires_at > ${ORDER_NOW} and f.id = l.file_id and s.replaced_at is null
     returning f.id, f.sha256, s.shipment_id as "shipmentId"`,
    [hashOf(token), usedBy],
  );
  if (!row) throw gone;
  const bytes = await deps.files.get(row.sha256);
  if (!bytes) throw new Error(`file ${row.sha256} of e-ticket ${row.id} is missing from the ${deps.files.kind} store`);
  return { file: { ...row, id: Number(row.id), shipmentId: Number(row.shipmentId) }, bytes };
}
