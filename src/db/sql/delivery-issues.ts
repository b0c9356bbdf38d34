import type { DeliveryIssueOutcome, DeliveryIssueReason, DeliveryIssueState } from '@fulfil/contract';
import type { PersistedIssue } from '../../../machines/index.ts';
import type { SqlRunner, SqlTx } from '../database.ts';

// The rows of delivery issues (drizzle/0019_delivery_issues.sql). Every write runs in a command's
// transaction under the order's lock (src/db/sql/lock-order.ts), which is what serialises the
// steps of one issue; the partial unique index still refuses a second undecided issue.

export interface IssueRow {
  id: number;
  orderId: number;
  shipmentId: number | null;
  state: DeliveryIssueState;
  snapshot: PersistedIssue;
  reason: DeliveryIssueReason;
  seats: string[];
  notes: string | null;
  openedByBrokerageId: number;
  openedAt: Date;
  respondBy: Date;
  respondedAt: Date | null;
  escalatedAt: Date | null;
  escalatedBy: 'buyer' | 'system' | null;
  resolvedAt: Date | null;
  closedAt: Date | null;
  outcome: DeliveryIssueOutcome | null;
  closeNotes: string | null;
  /** The buyer's words when resolving or escalating it (drizzle/0027). */
  resolutionNotes: string | null;
  escalationNotes: string | null;
  /** Its order's mode (orders.livemode): false for an issue of a test order. */
  livemode: boolean;
}

export interface ResponseRow {
  id: number;
  issueId: number;
  kind: 'reissue' | 'response';
  setId: number | null;
  tickets: unknown;
  transferSource: string | null;
  xMobileLink: string | null;
  notes: string | null;
  brokerageId: number;
  at: Date;
}

const ISSUE_COLUMNS = `id, order_id as "orderId", shipment_id as "shipmentId", state, snapshot, reason, seats, notes,
  opened_by_brokerage_id as "openedByBrokerageId", opened_at as "openedAt", respond_by as "respondBy",
  responded_at as "respondedAt", escalated_at as "escalatedAt", escalated_by as "escalatedBy", resolved_at as "resolvedAt",
  closed_at as "closedAt", outcome, close_notes as "closeNotes", resolution_notes as "resolutionNotes", escalation_notes as "escalationNotes",
  (select o.livemode from orders o where o.id = delivery_issues.order_id) as livemode`;

const RESPONSE_COLUMNS = `id, issue_id as "issueId", kind, set_id as "setId", tickets, transfer_source as "transferSource",
  x_mobile_link as "xMobileLink", notes, brokerage_id as "brokerageId", at`;

const date = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string));
const json = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : v);

function toIssue(r: Record<string, unknown>): IssueRow {
  return {
    ...(r as unknown as IssueRow),
    id: Number(r.id),
    orderId: Number(r.orderId),
    shipmentId: r.shipmentId === null ? null : Number(r.shipmentId),
    openedByBrokerageId: Number(r.openedByBrokerageId),
    snapshot: json(r.snapshot) as PersistedIssue,
    seats: json(r.seats) as string[],
    openedAt: date(r.openedAt)!,
    respondBy: date(r.respondBy)!,
    respondedAt: date(r.respondedAt),
    escalatedAt: date(r.escalatedAt),
    resolvedAt: date(r.resolvedAt),
    closedAt: date(r.closedAt),
  };
}

function toResponse(r: Record<string, unknown>): ResponseRow {
  return {
    ...(r as unknown as ResponseRow),
    id: Number(r.id),
    issueId: Number(r.issueId),
    setId: r.setId === null ? null : Number(r.setId),
    brokerageId: Number(r.brokerageId),
    tickets: json(r.tickets),
    at: date(r.at)!,
  };
}

/** The order an issue belongs to (before its lock is taken); undefined when there is no such issue. */
export async function orderOfIssue(db: SqlRunner, issueId: number): Promise<number | undefined> {
  const [row] = await db.rows<{ orderId: string }>(`select order_id as "orderId" from delivery_issues where id = $1::bigint`, [issueId]);
  return row ? Number(row.orderId) : undefined;
}

export async function issueById(db: SqlRunner, issueId: number): Promise<IssueRow | undefined> {
  const [row] = await db.rows<Record<string, unknown>>(`select ${ISSUE_COLUMNS} from delivery_issues where id = $1::bigint`, [issueId]);
  return row && toIssue(row);
}

/** The order's issues, oldest first. */
export async function issuesOfOrder(db: SqlRunner, orderId: number): Promise<IssueRow[]> {
  const rows = await db.rows<Record<string, unknown>>(
    `select ${ISSUE_COLUMNS} from delivery_issues where order_id = $1::bigint order by id`,
    [orderId],
  );
  return rows.map(toIssue);
}

/** The order's undecided issue (open, seller_responded or escalated), if any. */
export async function undecidedIssueOf(db: SqlRunner, orderId: number): Promise<IssueRow | undefined> {
  const [row] = await db.rows<Record<string, unknown>>(
    `select ${ISSUE_COLUMNS} from delivery_issues where order_id = $1::bigint and state in ('open', 'seller_responded', 'escalated')`,
    [orderId],
  );
  return row && toIssue(row);
}

/** The answers of the issues named, oldest first. */
export async function responsesOf(db: SqlRunner, issueIds: readonly number[]): Promise<ResponseRow[]> {
  if (issueIds.length === 0) return [];
  const rows = await db.rows<Record<string, unknown>>(
    `select ${RESPONSE_COLUMNS} from delivery_issue_responses where issue_id = any($1::bigint[]) order by id`,
    [issueIds],
  );
  return rows.map(toResponse);
}

export interface NewIssue {
  orderId: number;
  shipmentId: number | null;
  snapshot: PersistedIssue;
  reason: DeliveryIssueReason;
  seats: readonly string[];
  notes: string | null;
  brokerageId: number;
  userId: number | null;
  commandId: string;
  openedAt: Date;
  respondBy: Date;
}

export async function insertIssue(tx: SqlTx, i: NewIssue): Promise<IssueRow> {
  const [row] = await tx.rows<Record<string, unknown>>(
    `insert into delivery_issues (order_id, shipment_id, state, snapshot, reason, seats, notes, opened_by_brokerage_id,
       opened_by_user_id, command_id, opened_at, respond_by)
     values ($1::bigint, $2::bigint, 'open', $3::text::jsonb, $4, $5::text::jsonb, $6, $7::bigint, $8::bigint, $9, $10::timestamptz, $11::timestamptz)
     returning ${ISSUE_COLUMNS}`,
    [
      i.orderId,
      i.shipmentId,
      JSON.stringify(i.snapshot),
      i.reason,
      JSON.stringify(i.seats),
      i.notes,
      i.brokerageId,
      i.userId,
      i.commandId,
      i.openedAt.toISOString(),
      i.respondBy.toISOString(),
    ],
  );
  return toIssue(row!);
}

/** What a step of the issue sets beside its state: the column of when it happened, and the close's outcome. */
export interface IssueStep {
  state: DeliveryIssueState;
  snapshot: PersistedIssue;
  at: Date;
  escalatedBy?: 'buyer' | 'system';
  outcome?: DeliveryIssueOutcome;
  closeNotes?: string | null;
  resolutionNotes?: string | null;
  escalationNotes?: string | null;
}

const STEP_COLUMN: Record<DeliveryIssueState, string | null> = {
  open: null,
  seller_responded: 'responded_at',
  escalated: 'escalated_at',
  resolved: 'resolved_at',
  closed: 'closed_at',
};

/**
 * Moves the issue to its next state (the machine decided it); answers the row as it now is. The
 * step's time is the transaction's test clock where the order has one (D-180), else `step.at`.
 */
export async function stepIssue(tx: SqlRunner, issueId: number, step: IssueStep): Promise<IssueRow> {
  const column = STEP_COLUMN[step.state];
  const [row] = await tx.rows<Record<string, unknown>>(
    `update delivery_issues set state = $2, snapshot = $3::text::jsonb${column ? `, ${column} = coalesce(fulfil_clock(), $4::timestamptz)` : ''},
       escalated_by = coalesce($5, escalated_by), outcome = coalesce($6, outcome), close_notes = coalesce($7, close_notes),
       resolution_notes = coalesce($8, resolution_notes), escalation_notes = coalesce($9, escalation_notes)
     where id = $1::bigint returning ${ISSUE_COLUMNS}`,
    [
      issueId,
      step.state,
      JSON.stringify(step.snapshot),
      step.at.toISOString(),
      step.escalatedBy ?? null,
      step.outcome ?? null,
      step.closeNotes ?? null,
      step.resolutionNotes ?? null,
      step.escalationNotes ?? null,
    ],
  );
  if (!row) throw new Error(`delivery issue ${issueId} vanished under its order's lock`);
  return toIssue(row);
}

export interface NewResponse {
  issueId: number;
  orderId: number;
  shipmentId: number | null;
  kind: 'reissue' | 'response';
  setId?: number | null;
  tickets?: unknown;
  transferSource?: string | null;
  xMobileLink?: string | null;
  notes: string | null;
  brokerageId: number;
  userId: number | null;
  commandId: string;
  at: Date;
}

export async function insertResponse(tx: SqlRunner, r: NewResponse): Promise<ResponseRow> {
  const [row] = await tx.rows<Record<string, unknown>>(
    `insert into delivery_issue_responses (issue_id, order_id, shipment_id, kind, set_id, tickets, transfer_source, x_mobile_link,
       notes, brokerage_id, user_id, command_id, at)
     values ($1::bigint, $2::bigint, $3::bigint, $4, $5::bigint, $6::text::jsonb, $7, $8, $9, $10::bigint, $11::bigint, $12, coalesce(fulfil_clock(), $13::timestamptz))
     returning ${RESPONSE_COLUMNS}`,
    [
      r.issueId,
      r.orderId,
      r.shipmentId,
      r.kind,
      r.setId ?? null,
      r.tickets === undefined ? null : JSON.stringify(r.tickets),
      r.transferSource ?? null,
      r.xMobileLink ?? null,
      r.notes,
      r.brokerageId,
      r.userId,
      r.commandId,
      r.at.toISOString(),
    ],
  );
  return toResponse(row!);
}
