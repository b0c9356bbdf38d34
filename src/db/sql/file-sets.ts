import type { FileMediaType, FileSetKind } from '../schema/files.ts';
import type { SqlRunner, SqlTx } from '../database.ts';
import { appendEventCtes, eventMessage, type EventFacts } from './append-event.ts';
import { named } from './named-params.ts';
import type { ShipmentBefore } from './shipment-version.ts';
import { answerValues, storeAnswerCte, type Answer, type AnswerValues } from './store-result.ts';

/** A file as a set holds it, with what it was checked to be. */
export interface SetFile {
  id: number;
  position: number;
  sha256: string;
  seat: string | null;
  barcode: string | null;
  note: string | null;
  bytes: number;
  mediaType: FileMediaType;
  pages: number | null;
  width: number | null;
  height: number | null;
}

export interface FileSet {
  id: number;
  shipmentId: number;
  kind: FileSetKind;
  brokerageId: number;
  userId: number | null;
  createdAt: Date;
  replacedAt: Date | null;
  files: SetFile[];
}

/** The facts of stored files, refreshed (`stored_at`) and locked: housekeeping cannot remove them under a command. */
export interface StoredFileFacts {
  sha256: string;
  bytes: number;
  mediaType: FileMediaType;
  pages: number | null;
  width: number | null;
  height: number | null;
}

export async function holdStoredFiles(tx: SqlTx, sha256s: readonly string[]): Promise<Map<string, StoredFileFacts>> {
  const rows = await tx.rows<StoredFileFacts>(
    `update stored_files set stored_at = now() where sha256 = any($1::text[])
     returning sha256, bytes, media_type as "mediaType", pages, width, height`,
    [[...new Set(sha256s)]],
  );
  return new Map(rows.map((r) => [r.sha256, r]));
}

/** Ids for a new set and its files, drawn before the write so that the event and the answer can name them. */
export async function drawFileSetIds(tx: SqlTx, files: number): Promise<{ setId: number; fileIds: number[] }> {
  const [row] = await tx.rows<{ setId: number; fileIds: (number | string)[] }>(
    `select nextval('shipment_file_sets_id_seq') as "setId",
       array(select nextval('shipment_files_id_seq') from generate_series(1, $1::int)) as "fileIds"`,
    [files],
  );
  return { setId: Number(row!.setId), fileIds: row!.fileIds.map(Number) };
}

const SETS = `select s.id, s.shipment_id as "shipmentId", s.kind, s.brokerage_id as "brokerageId", s.user_id as "userId",
    s.created_at as "createdAt", s.replaced_at as "replacedAt",
    coalesce((select json_agg(json_build_object('id', f.id, 'position', f.position, 'sha256', f.sha256, 'seat', f.seat,
        'barcode', f.barcode, 'note', f.note, 'bytes', b.bytes, 'mediaType', b.media_type, 'pages', b.pages,
        'width', b.width, 'height', b.height) order by f.position)
      from shipment_files f join stored_files b on b.sha256 = f.sha256 where f.set_id = s.id), '[]'::json) as files
  from shipment_file_sets s`;

type SetRow = Omit<FileSet, 'createdAt' | 'replacedAt' | 'files'> & {
  createdAt: Date | string;
  replacedAt: Date | string | null;
  files: unknown;
};

function toSet(r: SetRow): FileSet {
  const files = (typeof r.files === 'string' ? JSON.parse(r.files) : r.files) as SetFile[];
  return {
    ...r,
    id: Number(r.id),
    shipmentId: Number(r.shipmentId),
    brokerageId: Number(r.brokerageId),
    userId: r.userId === null ? null : Number(r.userId),
    createdAt: new Date(r.createdAt),
    replacedAt: r.replacedAt === null ? null : new Date(r.replacedAt),
    files,
  };
}

/** The shipment's current e-ticket set, if any. */
export async function currentEticketSet(db: SqlRunner, shipmentId: number): Promise<FileSet | undefined> {
  const rows = await db.rows<SetRow>(`${SETS} where s.shipment_id = $1::bigint and s.kind = 'etickets' and s.replaced_at is null`, [
    shipmentId,
  ]);
  return rows[0] && toSet(rows[0]);
}

/** Every set of a kind the shipment holds, oldest first (replaced ones included). */
export async function fileSetsOf(db: SqlRunner, shipmentId: number, kind: FileSetKind): Promise<FileSet[]> {
  const rows = await db.rows<SetRow>(`${SETS} where s.shipment_id = $1::bigint and s.kind = $2 order by s.id`, [shipmentId, kind]);
  return rows.map(toSet);
}

/** Every set of an order's shipments, for the operators' order view. */
export async function fileSetsOfOrder(db: SqlRunner, orderId: number): Promise<FileSet[]> {
  const rows = await db.rows<SetRow>(`${SETS} where s.order_id = $1::bigint order by s.id`, [orderId]);
  return rows.map(toSet);
}

/** Marks the shipment's current e-ticket set replaced; before the new one is inserted (one current set, by index). */
export async function replaceCurrentEticketSet(tx: SqlTx, shipmentId: number): Promise<void> {
  await tx.rows(
    `update shipment_file_sets set replaced_at = fulfil_now() where shipment_id = $1::bigint and kind = 'etickets' and replaced_at is null`,
    [shipmentId],
  );
}

// The set, its files, the order's event (the shipment is unchanged: `n` only names it) and the
// answer, in one statement sent with COMMIT.
const ATTACH = named<AttachValues>(
  (p) => `
with s as (
  insert into shipment_file_sets (id, order_id, shipment_id, kind, command_id, brokerage_id, user_id, created_at)
  values (${p.setId}::bigint, ${p.orderId}::bigint, ${p.shipmentId}::bigint, ${p.kind}, ${p.commandId}, ${p.brokerageId}::bigint, ${p.userId}::bigint,
    ${p.createdAt}::timestamptz)
  returning id
),
f as (
  insert into shipment_files (id, set_id, position, sha256, seat, barcode, note)
  select x.id, s.id, x.position, x.sha256, x.seat, x.barcode, x.note
  from s, jsonb_to_recordset(${p.files}::text::jsonb) as x(id bigint, position int, sha256 text, seat text, barcode text, note text)
  returning id
),
o as (
  update orders set event_seq = orders.event_seq + 1 from s where orders.id = ${p.orderId}::bigint returning orders.id, orders.event_seq
),
n as (select id from shipments where id = ${p.shipmentId}::bigint and order_id = ${p.orderId}::bigint),
${appendEventCtes(p.message, 'true', `${p.before}::text::jsonb`)},
${storeAnswerCte(p)}
select (select count(*) from f)::int as files`,
);

interface AttachValues extends AnswerValues {
  setId: number;
  orderId: number;
  shipmentId: number;
  kind: FileSetKind;
  createdAt: string;
  brokerageId: number;
  userId: number | null;
  files: string;
  message: string;
  before: string | null;
}

export interface AttachWrite {
  setId: number;
  /** When the set is made: the answer shows it, so it is given, not left to now(). */
  createdAt: Date;
  kind: FileSetKind;
  orderId: number;
  shipment: { id: number; type: string; state: string };
  files: { id: number; sha256: string; seat?: string | undefined; barcode?: string | undefined; note?: string | undefined }[];
  event: Pick<EventFacts, 'actor' | 'commandId' | 'kind' | 'details'>;
  answer: Answer;
  /** What a statement before it changed in the shipment in place (an airbill's label facts), for the event. */
  shipmentBefore?: ShipmentBefore;
}

export async function attachFileSet(tx: SqlTx, w: AttachWrite): Promise<void> {
  const files = w.files.map((f, position) => ({
    id: f.id,
    position,
    sha256: f.sha256,
    seat: f.seat ?? null,
    barcode: f.barcode ?? null,
    note: f.note ?? null,
  }));
  const [row] = await tx.finish<{ files: number }>(
    ATTACH.text,
    ATTACH.params({
      setId: w.setId,
      createdAt: w.createdAt.toISOString(),
      orderId: w.orderId,
      shipmentId: w.shipment.id,
      kind: w.kind,
      brokerageId: w.event.actor.brokerageId,
      userId: w.event.actor.userId,
      files: JSON.stringify(files),
      message: eventMessage({
        ...w.event,
        orderId: w.orderId,
        shipmentId: w.shipment.id,
        from: { type: w.shipment.type, state: w.shipment.state },
        to: { type: w.shipment.type, state: w.shipment.state },
      }),
      ...answerValues(w.answer),
      before: w.shipmentBefore ? JSON.stringify(w.shipmentBefore) : null,
    }),
  );
  if (row?.files !== files.length) throw new Error(`file set ${w.setId} was not attached whole`);
}
