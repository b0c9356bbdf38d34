import { randomUUID } from 'node:crypto';
import type { SqlRunner } from '../db/client.ts';
import { clockJson, type ClockRow } from './clock-row.ts';

export type ClockEventKind = 'test_clock.advancing' | 'test_clock.ready';

/** A clock event's webhook deliveries, to hand to the webhook queue once committed. */
export interface ClockDelivery {
  endpointId: number;
  deliveryId: number;
}

/**
 * Appends one of the clock's own events in the caller's transaction: the clock as it now is, kept
 * with the event, and a delivery for each enabled webhook endpoint of its (sandbox) brokerage. A
 * clock event belongs to no order, so it rides the path a `ping` takes (order_id null, seq 0) to
 * the endpoints that take every kind (event_kinds left out or ["*"]):
 * signed, logged and retried like any event, not in the order feed (D-181).
 */
export async function appendClockEvent(tx: SqlRunner, clock: ClockRow, kind: ClockEventKind): Promise<ClockDelivery[]> {
  const eventId = randomUUID();
  await tx.rows(`insert into test_clock_events (event_id, clock_id, kind, body) values ($1, $2::bigint, $3, $4::text::jsonb)`, [
    eventId,
    clock.id,
    kind,
    JSON.stringify(clockJson(clock)),
  ]);
  const rows = await tx.rows<{ id: string; endpointId: string }>(
    `insert into webhook_deliveries (endpoint_id, order_id, seq, event_id, kind, event_at)
     select id, null, 0, $1, $2, now() from webhook_endpoints where brokerage_id = $3::bigint and enabled and event_kinds is null
     returning id, endpoint_id as "endpointId"`,
    [eventId, kind, clock.brokerageId],
  );
  return rows.map((r) => ({ endpointId: Number(r.endpointId), deliveryId: Number(r.id) }));
}

/** The event object a clock event's delivery sends; `body` is the clock as the event left it. */
export function clockEventPayload(head: { eventId: string; kind: string; eventAtMs: number }, body: unknown) {
  const clock = (body ?? null) as { id: number } | null;
  return {
    id: head.eventId,
    type: head.kind,
    created_at: new Date(head.eventAtMs).toISOString(),
    livemode: false,
    test_clock: clock?.id ?? null,
    data: { test_clock: clock },
  };
}
