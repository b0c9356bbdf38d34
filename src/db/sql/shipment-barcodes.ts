import type { SqlRunner } from '../database.ts';

// The barcodes a shipment gave (drizzle/0019_delivery_issues.sql, shipment_barcodes). Until a
// reissue replaces one they live where they were given (the completion's `tickets`, the e-ticket
// files' `barcode`) and are read from there; the first reissue copies them here, so that a
// replaced one keeps its row with when and by which reissue it was revoked.

export type BarcodeKey = 'barcode' | 'primary_ticket_id' | 'verification_id';

export interface BarcodeRow {
  id: number | null;
  seat: string | null;
  key: BarcodeKey;
  value: string;
  /** Where it was given: the completion's tickets, an e-ticket file, or a reissue. */
  source: 'completion' | 'eticket' | 'reissue';
  givenAt: Date;
  /** The reissue (its delivery_issue_responses id) that gave it; null when given at completion or upload. */
  givenBy: number | null;
  revokedAt: Date | null;
  revokedBy: number | null;
}

const COLUMNS = `id, seat, key, value, source, given_at as "givenAt", given_by as "givenBy", revoked_at as "revokedAt", revoked_by as "revokedBy"`;

function toRow(r: Record<string, unknown>): BarcodeRow {
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const d = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
  return {
    ...(r as unknown as BarcodeRow),
    id: n(r.id),
    givenBy: n(r.givenBy),
    revokedBy: n(r.revokedBy),
    givenAt: d(r.givenAt)!,
    revokedAt: d(r.revokedAt),
  };
}

// Before any reissue: the completion event's tickets and the e-tickets' barcodes of the set
// that was current when the shipment was completed (the current one: a completed shipment takes
// no upload), oldest first.
const GIVEN = `
select null::bigint as id, t->>'seat' as seat,
  case when t ? 'barcode' then 'barcode' when t ? 'primary_ticket_id' then 'primary_ticket_id' else 'verification_id' end as key,
  coalesce(t->>'barcode', t->>'primary_ticket_id', t->>'verification_id') as value, 'completion' as source, e.at as "givenAt",
  null::bigint as "givenBy", null::timestamptz as "revokedAt", null::bigint as "revokedBy"
from shipment_events e, jsonb_array_elements(coalesce(e.details->'tickets', '[]'::jsonb)) t
where e.shipment_id = $1::bigint and e.kind = 'completed'
union all
select null, f.seat, 'barcode', f.barcode, 'eticket', s.created_at, null, null, null
from shipment_file_sets s join shipment_files f on f.set_id = s.id
where s.shipment_id = $1::bigint and s.kind = 'etickets' and s.replaced_at is null and f.barcode is not null
order by "givenAt"`;

/** Every barcode of the shipment, live and revoked, oldest first. */
export async function barcodesOf(db: SqlRunner, shipmentId: number): Promise<BarcodeRow[]> {
  const rows = await db.rows<Record<string, unknown>>(
    `select ${COLUMNS} from shipment_barcodes where shipment_id = $1::bigint order by id`,
    [shipmentId],
  );
  if (rows.length > 0) return rows.map(toRow);
  return (await db.rows<Record<string, unknown>>(GIVEN, [shipmentId])).map(toRow);
}

/** Whether the barcodes were already copied to shipment_barcodes (a reissue happened). */
export async function hasBarcodeRows(db: SqlRunner, shipmentId: number): Promise<boolean> {
  const [row] = await db.rows<{ any: boolean }>(`select exists (select 1 from shipment_barcodes where shipment_id = $1::bigint) as any`, [
    shipmentId,
  ]);
  return row!.any;
}

export interface BarcodeWrite {
  shipmentId: number;
  orderId: number;
  /** The barcodes as they were given (copied on the first reissue; ids null). */
  copy: readonly BarcodeRow[];
  /** The ids (or, for copied rows, positions in `copy`) to revoke. */
  revoke: readonly BarcodeRow[];
  give: ReadonlyArray<{ seat: string | null; key: BarcodeKey; value: string; source: 'reissue' | 'eticket' }>;
  reissueId: number;
  at: Date;
}

/** Copies what was given (first reissue), revokes what the reissue replaced and inserts what it gives. */
export async function writeBarcodes(tx: SqlRunner, w: BarcodeWrite): Promise<void> {
  const revoked = new Set(w.revoke);
  const at = w.at.toISOString();
  const copied = w.copy.map((b) => ({
    seat: b.seat,
    key: b.key,
    value: b.value,
    source: b.source,
    given_at: b.givenAt.toISOString(),
    revoked: revoked.has(b),
  }));
  if (copied.length > 0) {
    await tx.rows(
      `insert into shipment_barcodes (shipment_id, order_id, seat, key, value, source, given_at, revoked_at, revoked_by)
       select $1::bigint, $2::bigint, x.seat, x.key, x.value, x.source, x.given_at,
         case when x.revoked then $4::timestamptz end, case when x.revoked then $5::bigint end
       from jsonb_to_recordset($3::text::jsonb) as x(seat text, key text, value text, source text, given_at timestamptz, revoked boolean)`,
      [w.shipmentId, w.orderId, JSON.stringify(copied), at, w.reissueId],
    );
  }
  const ids = w.revoke.filter((b) => b.id !== null).map((b) => b.id);
  if (ids.length > 0) {
    await tx.rows(
      `update shipment_barcodes set revoked_at = $2::timestamptz, revoked_by = $3::bigint where id = any($1::bigint[]) and revoked_at is null`,
      [ids, at, w.reissueId],
    );
  }
  if (w.give.length > 0) {
    await tx.rows(
      `insert into shipment_barcodes (shipment_id, order_id, seat, key, value, source, given_at, given_by)
       select $1::bigint, $2::bigint, x.seat, x.key, x.value, x.source, $4::timestamptz, $5::bigint
       from jsonb_to_recordset($3::text::jsonb) as x(seat text, key text, value text, source text)`,
      [w.shipmentId, w.orderId, JSON.stringify(w.give), at, w.reissueId],
    );
  }
}
