import { sql } from 'drizzle-orm';
import { query, type Executor } from '../db/client.ts';
import { seats, ticketGroups } from '../db/schema.ts';
import type { TicketGroupInput } from './ticket-group-input.ts';

/**
 * Inserts or updates ticket groups of one office by remote_id and replaces their seats as a
 * whole. remote_ids must be distinct within a call. Runs in the caller's transaction, so a batch is written entirely or not at all.
 */
export async function upsertTicketGroups(tx: Executor, officeId: number, records: readonly TicketGroupInput[]): Promise<number> {
  if (records.length === 0) return 0;
  const rows = records.map((r) => ({
    officeId,
    remoteId: r.remote_id,
    id: r.id,
    eventId: r.event_id,
    accountEmail: r.account_email,
    cost: r.cost,
    taxedCost: r.taxed_cost,
    price: r.price,
    faceValue: r.face_value,
    discount: r.discount,
    quantity: r.quantity,
    format: r.format,
    type: r.type,
    viewType: r.view_type,
    section: r.section,
    row: r.row,
    splitType: r.split_type,
    splitOverride: r.split_override,
    wheelchairAccessible: r.wheelchair_accessible,
    eticket: r.eticket,
    instantDelivery: r.instant_delivery,
    inHand: r.in_hand,
    inHandOn: r.in_hand_on,
    externalNotes: r.external_notes,
    speculative: r.speculative,
  }));
  const excluded = (column: string) => sql.raw(`excluded.${column}`);
  const updatable = [
    'id', 'event_id', 'account_email', 'cost', 'taxed_cost', 'price', 'face_value', 'discount', 'quantity', 'format',
    'type', 'view_type', 'section', 'row', 'split_type', 'split_override', 'wheelchair_accessible', 'eticket',
    'instant_delivery', 'in_hand', 'in_hand_on', 'external_notes', 'speculative',
  ];
  const set = Object.fromEntries(updatable.map((c) => [c, excluded(c)]));
  const pkByRemote = new Map<number, number>();
  // Postgres caps a statement at 65535 parameters; 25 columns a row leaves room for 2000 rows.
  for (let i = 0; i < rows.length; i += 2000) {
    const chunk = rows.slice(i, i + 2000);
    const written = await tx
        .insert(ticketGroups)
        .values(chunk)
        .onConflictDoUpdate({
          target: [ticketGroups.officeId, ticketGroups.remoteId],
          set: { ...set, updatedAt: sql`now()` },
        })
        .returning({ pk: ticketGroups.pk, remoteId: ticketGroups.remoteId });
    for (const w of written) pkByRemote.set(w.remoteId, w.pk);
  }
  const pks = [...pkByRemote.values()];
  await query(tx, sql`delete from ${seats} where ${seats.ticketGroupPk} = any(${sql.param(pks)}::bigint[])`);
  const seatRows = records.flatMap((r) =>
    r.seats.map((s, position) => ({
      ticketGroupPk: pkByRemote.get(r.remote_id)!,
      position,
      barcode: s.barcode,
      primaryTicketId: s.primary_ticket_id,
      seat: s.seat,
      verificationId: s.verification_id,
    })),
  );
  for (let i = 0; i < seatRows.length; i += 10_000) await tx.insert(seats).values(seatRows.slice(i, i + 10_000));
  return pks.length;
}
