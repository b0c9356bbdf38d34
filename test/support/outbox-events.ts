import { randomUUID } from 'node:crypto';
import type { Sql, TransactionSql } from 'postgres';

/**
 * One synthetic event, as a command would leave it: its shipment_events row (the relay builds the
 * published message from it) and an outbox row naming it. Only order_id and seq are required;
 * (order_id, seq) must be unique in the database. The order need not exist: the relay then writes
 * no feed rows for it, and still publishes it to the events stream and the follower.
 */
export interface OutboxEvent {
  orderId: number;
  seq: number;
  /** Default: a fresh UUID. */
  eventId?: string;
  /** Default: 'created'. */
  kind?: string;
  shipmentId?: number | null;
  newShipmentId?: number | null;
  fromType?: string | null;
  fromState?: string | null;
  /** Default: 'TBD'. */
  toType?: string | null;
  /** Default: 'pending'. */
  toState?: string | null;
  details?: unknown;
  /** Default: the seller of brokerage 1, no user. */
  actor?: { type: 'party'; brokerageId: number; userId?: number | null; role: 'seller' | 'buyer' } | { type: 'system'; reason: string };
  /** A party's event only; default: `c-` and a fresh UUID. */
  commandId?: string;
  /** Default: now. */
  at?: Date;
}

export interface WrittenEvents {
  /** The events' event_id, in the order given. */
  eventIds: string[];
  /** Their shipment_events ids, in the order given. */
  eventRowIds: number[];
  /** Their outbox ids, in the order given (ascending: the relay takes them in this order). */
  outboxIds: number[];
}

/**
 * Writes `events` in bulk, each chunk in one statement: the shipment_events rows and, in the same
 * order, the outbox rows naming them, so the relay publishes them in the order given.
 */
export async function writeOutboxEvents(sql: Sql | TransactionSql, events: readonly OutboxEvent[], chunk = 1000): Promise<WrittenEvents> {
  const written: WrittenEvents = { eventIds: [], eventRowIds: [], outboxIds: [] };
  for (let i = 0; i < events.length; i += chunk) {
    const rows = events.slice(i, i + chunk).map((e, ord) => {
      const actor = e.actor ?? { type: 'party', brokerageId: 1, userId: null, role: 'seller' };
      const party = actor.type === 'party';
      return {
        event_id: e.eventId ?? randomUUID(),
        order_id: e.orderId,
        seq: e.seq,
        kind: e.kind ?? 'created',
        shipment_id: e.shipmentId ?? null,
        new_shipment_id: e.newShipmentId ?? null,
        from_type: e.fromType ?? null,
        from_state: e.fromState ?? null,
        to_type: e.toType === undefined ? 'TBD' : e.toType,
        to_state: e.toState === undefined ? 'pending' : e.toState,
        details: e.details ?? null,
        actor_type: actor.type,
        actor_brokerage_id: party ? actor.brokerageId : null,
        actor_user_id: party ? (actor.userId ?? null) : null,
        actor_role: party ? actor.role : null,
        actor_reason: party ? null : actor.reason,
        command_id: party ? (e.commandId ?? `c-${randomUUID()}`) : null,
        at: (e.at ?? new Date()).toISOString(),
        ord,
      };
    });
    // One statement: the event rows in the order given (ord), then their outbox rows in event row order.
    const out = await sql<{ event_id: string; event_row_id: string; outbox_id: string }[]>`
      with r as (
        select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(
          event_id text, order_id bigint, seq int, kind text, shipment_id bigint, new_shipment_id bigint,
          from_type text, from_state text, to_type text, to_state text, details jsonb, actor_type text,
          actor_brokerage_id bigint, actor_user_id bigint, actor_role text, actor_reason text, command_id text,
          at timestamptz, ord int)),
      e as (
        insert into shipment_events (event_id, order_id, seq, kind, shipment_id, new_shipment_id, from_type, from_state,
          to_type, to_state, details, actor_type, actor_brokerage_id, actor_user_id, actor_role, actor_reason, command_id, at)
        select event_id, order_id, seq, kind, shipment_id, new_shipment_id, from_type, from_state,
          to_type, to_state, details, actor_type, actor_brokerage_id, actor_user_id, actor_role, actor_reason, command_id, at
        from r order by ord
        returning id, event_id),
      x as (insert into outbox (event_row_id) select id from e order by id returning id, event_row_id)
      select e.event_id, e.id as event_row_id, x.id as outbox_id from e join x on x.event_row_id = e.id`;
    const byEventId = new Map(out.map((o) => [o.event_id, o]));
    for (const r of rows) {
      const o = byEventId.get(r.event_id)!;
      written.eventIds.push(r.event_id);
      written.eventRowIds.push(Number(o.event_row_id));
      written.outboxIds.push(Number(o.outbox_id));
    }
  }
  const ascending = (ids: number[]) => ids.every((id, k) => k === 0 || id > ids[k - 1]!);
  if (!ascending(written.eventRowIds) || !ascending(written.outboxIds))
    throw new Error('writeOutboxEvents: the rows were not numbered in the order given');
  return written;
}

/** How many events wait in the outbox: 0 once the relay has drained it. */
export async function outboxWaiting(sql: Sql | TransactionSql): Promise<number> {
  return (await sql`select count(*)::int as n from outbox`)[0]!.n as number;
}
