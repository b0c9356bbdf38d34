import { randomUUID } from 'node:crypto';
import type { Sql, TransactionSql } from 'postgres';

/**
 * One synthetic event, as a command would leave it: its shipment_events row (the relay builds the
 * published message from it) and its feed row waiting for a position (the outbox), naming its
 * order's parties. Only order_id and seq are required; (order_id, seq) must be unique in the
 * database. The order need not exist: its feed row then names brokerage 0 as both parties (in no
 * real brokerage's feed), and the relay still publishes it to the events stream and the follower.
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
}

/**
 * Writes `events` in bulk, each chunk in one statement: the shipment_events rows, numbered in the
 * order given, and their waiting feed rows, so the relay (which takes them in event row order)
 * publishes them in the order given.
 */
export async function writeOutboxEvents(sql: Sql | TransactionSql, events: readonly OutboxEvent[], chunk = 1000): Promise<WrittenEvents> {
  const written: WrittenEvents = { eventIds: [], eventRowIds: [] };
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
    // One statement: the event rows in the order given (ord), then their waiting feed rows.
    const out = await sql<{ event_id: string; event_row_id: string }[]>`
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
        returning id, event_id, order_id),
      x as (insert into event_feed (event_row_id, seller_brokerage_id, buyer_brokerage_id)
            select e.id, coalesce(f.brokerage_id, 0), coalesce(o.buyer_brokerage_id, 0)
            from e left join orders o on o.id = e.order_id left join offices f on f.id = o.seller_office_id)
      select e.event_id, e.id as event_row_id from e`;
    const byEventId = new Map(out.map((o) => [o.event_id, o]));
    for (const r of rows) {
      const o = byEventId.get(r.event_id)!;
      written.eventIds.push(r.event_id);
      written.eventRowIds.push(Number(o.event_row_id));
    }
  }
  const ascending = (ids: number[]) => ids.every((id, k) => k === 0 || id > ids[k - 1]!);
  if (!ascending(written.eventRowIds)) throw new Error('writeOutboxEvents: the rows were not numbered in the order given');
  return written;
}

/** How many events wait in the outbox (feed rows with no position): 0 once the relay has drained it. */
export async function outboxWaiting(sql: Sql | TransactionSql): Promise<number> {
  return (await sql`select count(*)::int as n from event_feed where position is null`)[0]!.n as number;
}
