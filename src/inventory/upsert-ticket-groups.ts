import { sql } from 'drizzle-orm';
import { query, type Executor } from '../db/client.ts';
import type { TicketGroupInput } from '@fulfil/contract';

/** Records per statement: keeps one JSON parameter to a few megabytes. */
const CHUNK = 10_000;

// The record columns as json_to_recordset reads them; names and types of ticket_groups.
const COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['remote_id', 'bigint'],
  ['id', 'bigint'],
  ['event_id', 'bigint'],
  ['account_email', 'text'],
  ['cost', 'numeric'],
  ['taxed_cost', 'numeric'],
  ['price', 'numeric'],
  ['face_value', 'numeric'],
  ['discount', 'numeric'],
  ['quantity', 'integer'],
  ['format', 'text'],
  ['type', 'text'],
  ['view_type', 'text'],
  ['section', 'text'],
  ['row', 'text'],
  ['split_type', 'text'],
  ['split_override', 'integer[]'],
  ['wheelchair_accessible', 'boolean'],
  ['eticket', 'boolean'],
  ['instant_delivery', 'boolean'],
  ['in_hand', 'boolean'],
  ['in_hand_on', 'date'],
  ['external_notes', 'text'],
  ['speculative', 'boolean'],
];
const names = COLUMNS.map(([n]) => `"${n}"`).join(', ');
const recordType = COLUMNS.map(([n, t]) => `"${n}" ${t}`).join(', ');
const updates = COLUMNS.filter(([n]) => n !== 'remote_id')
  .map(([n]) => `"${n}" = excluded."${n}"`)
  .join(', ');

/**
 * Inserts or updates ticket groups of one office by remote_id and replaces their seats as a
 * whole. remote_ids must be distinct within a call. Runs in the caller's transaction, so a batch
 * is written entirely or not at all. Each chunk travels as one JSON parameter (json_to_recordset)
 * rather than a parameter per value, and rows are written in remote_id order so that concurrent
 * batches lock shared rows in the same order.
 */
export async function upsertTicketGroups(tx: Executor, officeId: number, records: readonly TicketGroupInput[]): Promise<number> {
  let written = 0;
  for (let i = 0; i < records.length; i += CHUNK) {
    written += await upsertChunk(tx, officeId, records.slice(i, i + CHUNK));
  }
  return written;
}

async function upsertChunk(tx: Executor, officeId: number, records: readonly TicketGroupInput[]): Promise<number> {
  if (records.length === 0) return 0;
  const rows = records.map((r) => Object.fromEntries(COLUMNS.map(([n]) => [n, r[n as keyof TicketGroupInput]])));
  const [done] = await query<{ n: number }>(
    tx,
    sql`with w as (
          insert into ticket_groups (office_id, ${sql.raw(names)})
          select ${officeId}::bigint, ${sql.raw(names)}
          from json_to_recordset(${JSON.stringify(rows)}::json) as r(${sql.raw(recordType)})
          order by r.remote_id
          on conflict (office_id, remote_id) do update set ${sql.raw(updates)}, updated_at = now()
          returning 1)
        select count(*)::int as n from w`,
  );
  const remoteIds = `{${records.map((r) => r.remote_id).join(',')}}`;
  await query(
    tx,
    sql`delete from seats s using ticket_groups tg
        where s.ticket_group_pk = tg.pk and tg.office_id = ${officeId}::bigint and tg.remote_id = any(${remoteIds}::bigint[])`,
  );
  const seatRows = records.flatMap((r) =>
    r.seats.map((s, position) => ({
      remote_id: r.remote_id,
      position,
      barcode: s.barcode,
      primary_ticket_id: s.primary_ticket_id,
      seat: s.seat,
      verification_id: s.verification_id,
    })),
  );
  if (seatRows.length > 0) {
    await query(
      tx,
      sql`insert into seats (ticket_group_pk, position, barcode, primary_ticket_id, seat, verification_id)
          select tg.pk, s.position, s.barcode, s.primary_ticket_id, s.seat, s.verification_id
          from json_to_recordset(${JSON.stringify(seatRows)}::json)
            as s(remote_id bigint, position integer, barcode text, primary_ticket_id bigint, seat text, verification_id text)
          join ticket_groups tg on tg.office_id = ${officeId}::bigint and tg.remote_id = s.remote_id`,
    );
  }
  return Number(done!.n);
}
