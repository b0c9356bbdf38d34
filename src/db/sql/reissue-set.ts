import { drawFileSetIds } from './file-sets.ts';
import type { SqlRunner, SqlTx } from '../database.ts';

interface ReissueFile {
  sha256: string;
  seat?: string | undefined;
  barcode?: string | undefined;
  note?: string | undefined;
}

/**
 * A reissue's e-tickets as the shipment's new current set (the caller marked the old one replaced),
 * or a new envelope's bought label as its airbill: the set and its files only; the reissue's events
 * are appended by its handler.
 */
export async function insertReissueSet(
  tx: SqlTx,
  w: {
    orderId: number;
    shipmentId: number;
    commandId: string;
    actor: { brokerageId: number; userId: number | null };
    at: Date;
    kind?: 'etickets' | 'airbill';
    files: readonly ReissueFile[];
  },
): Promise<{ setId: number; files: Array<ReissueFile & { id: number }> }> {
  const { setId, fileIds } = await drawFileSetIds(tx, w.files.length);
  const files = w.files.map((f, position) => ({
    id: fileIds[position]!,
    position,
    sha256: f.sha256,
    seat: f.seat ?? null,
    barcode: f.barcode ?? null,
    note: f.note ?? null,
  }));
  await (tx as SqlRunner).rows(
    `with s as (
       insert into shipment_file_sets (id, order_id, shipment_id, kind, command_id, brokerage_id, user_id, created_at)
       values ($1::bigint, $2::bigint, $3::bigint, $9, $4, $5::bigint, $6::bigint, $7::timestamptz) returning id
     )
     insert into shipment_files (id, set_id, position, sha256, seat, barcode, note)
     select x.id, s.id, x.position, x.sha256, x.seat, x.barcode, x.note
     from s, jsonb_to_recordset($8::text::jsonb) as x(id bigint, position int, sha256 text, seat text, barcode text, note text)`,
    [
      setId,
      w.orderId,
      w.shipmentId,
      w.commandId,
      w.actor.brokerageId,
      w.actor.userId,
      w.at.toISOString(),
      JSON.stringify(files),
      w.kind ?? 'etickets',
    ],
  );
  return { setId, files: w.files.map((f, i) => ({ ...f, id: fileIds[i]! })) };
}

/** A lost envelope's bought label, spent by the reissue that replaced it: the next reissue may buy again (D-158). */
export async function markLabelReplaced(tx: SqlTx, shipmentId: number, labelId: string): Promise<void> {
  await (tx as SqlRunner).rows(
    `update label_purchases set state = 'replaced' where shipment_id = $1::bigint and label_id = $2 and state = 'bought'`,
    [shipmentId, labelId],
  );
}
