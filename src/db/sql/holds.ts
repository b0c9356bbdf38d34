import type { HoldReason } from '@fulfil/contract';
import { sql } from 'drizzle-orm';
import { query, type Executor, type SqlRunner } from '../client.ts';

/** Who acted on a hold: a party (its brokerage and user), an operator by name, or the service. */
export interface HoldActor {
  party: 'seller' | 'buyer' | 'operator' | 'system';
  brokerageId: number | null;
  userId: number | null;
  operator: string | null;
}

export interface HoldRow {
  id: number;
  orderId: number;
  reason: HoldReason;
  notes: string | null;
  handle: string | null;
  seats: string[];
  placedBy: HoldActor;
  placedAt: Date;
  releaseAt: Date | null;
  releasedAt: Date | null;
  releasedBy: HoldActor | null;
  releaseWhy: 'released' | 'release_at' | null;
  answerNotes: string | null;
  answeredAt: Date | null;
  deadlineExtendedMs: number;
  livemode: boolean;
}

const COLUMNS = `h.id, h.order_id as "orderId", h.reason, h.notes, h.handle, h.seats,
  h.placed_by_party as "placedByParty", h.placed_by_brokerage_id as "placedByBrokerageId", h.placed_by_user_id as "placedByUserId",
  h.placed_by_operator as "placedByOperator", h.placed_at as "placedAt", h.release_at as "releaseAt", h.released_at as "releasedAt",
  h.released_by_party as "releasedByParty", h.released_by_brokerage_id as "releasedByBrokerageId", h.released_by_user_id as "releasedByUserId",
  h.released_by_operator as "releasedByOperator", h.release_why as "releaseWhy", h.answer_notes as "answerNotes",
  h.answered_at as "answeredAt", h.deadline_extended_ms as "deadlineExtendedMs",
  (select o.livemode from orders o where o.id = h.order_id) as livemode`;

type Raw = Record<string, unknown>;
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));

function toRow(r: Raw): HoldRow {
  return {
    id: Number(r.id),
    orderId: Number(r.orderId),
    reason: r.reason as HoldReason,
    notes: r.notes as string | null,
    handle: r.handle as string | null,
    seats: (r.seats as string[] | null) ?? [],
    placedBy: {
      party: r.placedByParty as HoldActor['party'],
      brokerageId: num(r.placedByBrokerageId),
      userId: num(r.placedByUserId),
      operator: r.placedByOperator as string | null,
    },
    placedAt: date(r.placedAt)!,
    releaseAt: date(r.releaseAt),
    releasedAt: date(r.releasedAt),
    releasedBy: r.releasedByParty
      ? {
          party: r.releasedByParty as HoldActor['party'],
          brokerageId: num(r.releasedByBrokerageId),
          userId: num(r.releasedByUserId),
          operator: r.releasedByOperator as string | null,
        }
      : null,
    releaseWhy: r.releaseWhy as HoldRow['releaseWhy'],
    answerNotes: r.answerNotes as string | null,
    answeredAt: date(r.answeredAt),
    deadlineExtendedMs: Number(r.deadlineExtendedMs),
    livemode: r.livemode !== false,
  };
}

/** Every hold of the order, oldest first, released ones included. */
export async function holdsOfOrder(db: SqlRunner, orderId: number): Promise<HoldRow[]> {
  return (await db.rows<Raw>(`select ${COLUMNS} from holds h where h.order_id = $1::bigint order by h.id`, [orderId])).map(toRow);
}

/** The order's active holds, oldest first. */
export async function activeHoldsOf(db: SqlRunner, orderId: number): Promise<HoldRow[]> {
  return (
    await db.rows<Raw>(`select ${COLUMNS} from holds h where h.order_id = $1::bigint and h.released_at is null order by h.id`, [orderId])
  ).map(toRow);
}

export async function holdById(db: SqlRunner, holdId: number): Promise<HoldRow | undefined> {
  const [row] = await db.rows<Raw>(`select ${COLUMNS} from holds h where h.id = $1::bigint`, [holdId]);
  return row && toRow(row);
}

export async function holdByHandle(db: SqlRunner, orderId: number, handle: string): Promise<HoldRow | undefined> {
  const [row] = await db.rows<Raw>(`select ${COLUMNS} from holds h where h.order_id = $1::bigint and h.handle = $2`, [orderId, handle]);
  return row && toRow(row);
}

/** The order a hold belongs to (unlocked: the caller locks it next); undefined for no such hold. */
export async function orderOfHold(db: SqlRunner, holdId: number): Promise<number | undefined> {
  const [row] = await db.rows<{ orderId: string }>(`select order_id as "orderId" from holds where id = $1::bigint`, [holdId]);
  return row ? Number(row.orderId) : undefined;
}

export async function insertHold(
  tx: SqlRunner,
  h: {
    orderId: number;
    reason: HoldReason;
    notes: string | null;
    handle: string | null;
    seats: readonly string[];
    by: HoldActor;
    placedAt: Date;
    releaseAt: Date | null;
    commandId: string;
  },
): Promise<HoldRow> {
  const [row] = await tx.rows<{ id: string }>(
    `insert into holds (order_id, reason, notes, handle, seats, placed_by_party, placed_by_brokerage_id, placed_by_user_id,
       placed_by_operator, placed_at, release_at, command_id)
     values ($1::bigint, $2, $3, $4, $5::jsonb, $6, $7::bigint, $8::bigint, $9, $10::timestamptz, $11::timestamptz, $12) returning id`,
    [
      h.orderId,
      h.reason,
      h.notes,
      h.handle,
      JSON.stringify(h.seats),
      h.by.party,
      h.by.brokerageId,
      h.by.userId,
      h.by.operator,
      h.placedAt.toISOString(),
      h.releaseAt?.toISOString() ?? null,
      h.commandId,
    ],
  );
  return (await holdById(tx, Number(row!.id)))!;
}

/** Marks an active hold released (under its order's lock); undefined when it was released already. */
export async function markReleased(
  tx: SqlRunner,
  holdId: number,
  r: { at: Date; by: HoldActor; why: 'released' | 'release_at'; extendedMs: number },
): Promise<HoldRow | undefined> {
  const rows = await tx.rows<{ id: string }>(
    `update holds set released_at = $2::timestamptz, released_by_party = $3, released_by_brokerage_id = $4::bigint,
       released_by_user_id = $5::bigint, released_by_operator = $6, release_why = $7, deadline_extended_ms = $8::bigint
     where id = $1::bigint and released_at is null returning id`,
    [holdId, r.at.toISOString(), r.by.party, r.by.brokerageId, r.by.userId, r.by.operator, r.why, r.extendedMs],
  );
  return rows.length === 1 ? holdById(tx, holdId) : undefined;
}

export async function markAnswered(tx: SqlRunner, holdId: number, notes: string, at: Date): Promise<HoldRow> {
  await tx.rows(`update holds set answer_notes = $2, answered_at = $3::timestamptz where id = $1::bigint`, [
    holdId,
    notes,
    at.toISOString(),
  ]);
  return (await holdById(tx, holdId))!;
}

/** The order's active holds through the ORM's executor (the order answer's read, D-219). */
export async function activeHoldsVia(ex: Executor, orderId: number): Promise<HoldRow[]> {
  const rows = await query<Raw>(
    ex,
    sql`select ${sql.raw(COLUMNS)} from holds h where h.order_id = ${orderId} and h.released_at is null order by h.id`,
  );
  return rows.map(toRow);
}

/** Every hold of the order through the ORM's executor (the ops order view). */
export async function holdsVia(ex: Executor, orderId: number): Promise<HoldRow[]> {
  const rows = await query<Raw>(ex, sql`select ${sql.raw(COLUMNS)} from holds h where h.order_id = ${orderId} order by h.id`);
  return rows.map(toRow);
}
