import type { FileSet, SetFile } from '../db/sql/file-sets.ts';

// How files of a shipment show in answers, reads and events: facts and paths, never bytes.

export const eticketPath = (shipmentId: number, fileId: number) => `/v9/shipments/${shipmentId}/etickets/${fileId}`;
export const proofPath = (shipmentId: number, fileId: number) => `/v9/shipments/${shipmentId}/transfer_verifications/${fileId}`;

/** An e-ticket: `{id, seat, pages, bytes, sha256, barcode, url}`. */
export function eticketJson(shipmentId: number, f: Pick<SetFile, 'id' | 'seat' | 'pages' | 'bytes' | 'sha256' | 'barcode'>) {
  return {
    id: f.id,
    seat: f.seat,
    pages: f.pages,
    bytes: f.bytes,
    sha256: f.sha256,
    barcode: f.barcode,
    url: eticketPath(shipmentId, f.id),
  };
}

/** A file of a proof of transfer. */
export function proofFileJson(shipmentId: number, f: SetFile) {
  return {
    id: f.id,
    media_type: f.mediaType,
    pages: f.pages,
    width: f.width,
    height: f.height,
    bytes: f.bytes,
    sha256: f.sha256,
    note: f.note,
    url: proofPath(shipmentId, f.id),
  };
}

/** A set as GET …/etickets shows it (its files, who uploaded them and when). */
export function eticketSetJson(set: FileSet) {
  return {
    id: set.id,
    uploaded_at: set.createdAt.toISOString(),
    uploaded_by: { brokerage_id: set.brokerageId, user_id: set.userId },
    replaced_at: set.replacedAt?.toISOString() ?? null,
    etickets: set.files.map((f) => eticketJson(set.shipmentId, f)),
  };
}

export function transferVerificationJson(set: FileSet) {
  return {
    id: set.id,
    verified_at: set.createdAt.toISOString(),
    verified_by: { brokerage_id: set.brokerageId, user_id: set.userId },
    files: set.files.map((f) => proofFileJson(set.shipmentId, f)),
  };
}
