import { withMode } from './answer-mode.ts';
import { NotFound } from '@fulfil/contract';
import type { SqlRunner } from '../db/database.ts';
import { fileSetsOf, type FileSet, type SetFile } from '../db/sql/file-sets.ts';
import type { FileStore } from '../files/file-store.ts';
import { eticketJson, eticketSetJson, transferVerificationJson } from '../domain/file-json.ts';

/**
 * The files of a shipment, read by its two parties only: anyone else, and an id that is not the
 * shipment's, is told 404 (so ids cannot be probed). Unlocked: a read never waits for a command.
 */
export async function partyOfShipment(
  db: SqlRunner,
  shipmentId: number,
  brokerageId: number,
): Promise<{ orderId: number; role: 'seller' | 'buyer'; livemode: boolean }> {
  const [row] = await db.rows<{ orderId: number; sellerBrokerageId: number; buyerBrokerageId: number; livemode: boolean }>(
    `select s.order_id as "orderId", f.brokerage_id as "sellerBrokerageId", o.buyer_brokerage_id as "buyerBrokerageId", o.livemode
     from shipments s join orders o on o.id = s.order_id join offices f on f.id = o.seller_office_id where s.id = $1::bigint`,
    [shipmentId],
  );
  if (row && Number(row.sellerBrokerageId) === brokerageId) return { orderId: Number(row.orderId), role: 'seller', livemode: row.livemode };
  if (row && Number(row.buyerBrokerageId) === brokerageId) return { orderId: Number(row.orderId), role: 'buyer', livemode: row.livemode };
  throw new NotFound(`shipment ${shipmentId} not found`);
}

/** GET /v9/shipments/:id/etickets: the current e-tickets, and every upload (replaced ones are listed, not served). */
export async function listEtickets(db: SqlRunner, shipmentId: number, brokerageId: number) {
  const order = await partyOfShipment(db, shipmentId, brokerageId);
  const sets = await fileSetsOf(db, shipmentId, 'etickets');
  const current = sets.find((s) => s.replacedAt === null);
  return withMode(
    {
      shipment_id: shipmentId,
      etickets: current ? current.files.map((f) => eticketJson(shipmentId, f)) : [],
      uploads: sets.map(eticketSetJson),
    },
    order,
  );
}

/** GET /v9/shipments/:id/transfer_verifications. */
export async function listTransferVerifications(db: SqlRunner, shipmentId: number, brokerageId: number) {
  const order = await partyOfShipment(db, shipmentId, brokerageId);
  const sets = await fileSetsOf(db, shipmentId, 'transfer_verification');
  return withMode({ shipment_id: shipmentId, transfer_verifications: sets.map(transferVerificationJson) }, order);
}

export interface ServedFile {
  file: SetFile;
  bytes: Buffer;
}

/** A file of the shipment's current e-tickets, or of any of its proofs of transfer. */
export function servableFile(sets: readonly FileSet[], fileId: number): SetFile | undefined {
  for (const set of sets) {
    if (set.kind === 'etickets' && set.replacedAt !== null) continue;
    const file = set.files.find((f) => f.id === fileId);
    if (file) return file;
  }
  return undefined;
}

/**
 * An e-ticket of a replaced upload is not served; its 404 says so and names the upload that
 * replaced it and that upload's e-tickets, as a replaced shipment's 410 names the live one.
 */
export function replacedFileMessage(sets: readonly FileSet[], shipmentId: number, fileId: number): string | undefined {
  const i = sets.findIndex((s) => s.kind === 'etickets' && s.replacedAt !== null && s.files.some((f) => f.id === fileId));
  if (i < 0) return undefined;
  // Uploads replace one another in order: the next upload replaced this one.
  const by = [...sets].sort((a, b) => a.id - b.id).find((s) => s.kind === 'etickets' && s.id > sets[i]!.id);
  const those = by
    ? `upload ${by.id} (e-ticket${by.files.length === 1 ? '' : 's'} ${by.files.map((f) => f.id).join(', ')})`
    : 'a later upload';
  return `e-ticket ${fileId} of shipment ${shipmentId} was replaced by ${those}; GET /v9/shipments/${shipmentId}/etickets lists the current ones`;
}

/** GET /v9/shipments/:id/etickets/:eticket_id and …/transfer_verifications/:file_id: the bytes, to the two parties. */
export async function readShipmentFile(
  deps: { database: SqlRunner; files: FileStore },
  shipmentId: number,
  brokerageId: number,
  kind: FileSet['kind'],
  fileId: number,
): Promise<ServedFile> {
  await partyOfShipment(deps.database, shipmentId, brokerageId);
  const sets = await fileSetsOf(deps.database, shipmentId, kind);
  const file = servableFile(sets, fileId);
  const what = kind === 'etickets' ? 'e-ticket' : 'file';
  if (!file) throw new NotFound(replacedFileMessage(sets, shipmentId, fileId) ?? `${what} ${fileId} of shipment ${shipmentId} not found`);
  const bytes = await deps.files.get(file.sha256);
  // A referenced file cannot be deleted (a foreign key), so this is a store that lost it.
  if (!bytes) throw new Error(`file ${file.sha256} of ${what} ${fileId} is missing from the ${deps.files.kind} store`);
  return { file, bytes };
}
