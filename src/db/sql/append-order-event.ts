import type { SqlTx } from '../client.ts';
import { appendEventCtes, eventMessage, type EventFacts, type SystemEventFacts } from './append-event.ts';
import { named } from './named-params.ts';
import type { ShipmentBefore } from './shipment-version.ts';

// An event that changes no shipment row: the order's counter is bumped under its lock and the
// event appended, naming the live shipment as it is (none for an order that has none). Files
// uploaded, a deadline reminder, a cancellation proposed: each is such an event. A statement that
// also changes the order or a shipment ends with appendEventCtes itself, as the shipment
// statements do.
const APPEND = named<{ orderId: number; message: string; before: string | null }>(
  (p) => `
with o as (update orders set event_seq = event_seq + 1 where id = ${p.orderId}::bigint returning id, event_seq),
n as (select id from shipments where order_id = ${p.orderId}::bigint and replaced_by is null),
${appendEventCtes(p.message, 'true', `${p.before}::text::jsonb`)}
select m.msg->>'event_id' as "eventId", m.event_seq as seq from m`,
);

/**
 * Appends the event in the caller's transaction (which holds the order's lock); its event id and
 * seq. `shipmentBefore`: what a statement before it in the transaction changed in the live
 * shipment in place (shipment-version.ts), recorded on this event.
 */
export async function appendOrderEvent(
  tx: SqlTx,
  facts: EventFacts | SystemEventFacts,
  shipmentBefore: ShipmentBefore = null,
): Promise<{ eventId: string; seq: number }> {
  const rows = await tx.rows<{ eventId: string; seq: number }>(
    APPEND.text,
    APPEND.params({ orderId: facts.orderId, message: eventMessage(facts), before: shipmentBefore && JSON.stringify(shipmentBefore) }),
  );
  if (rows.length !== 1) throw new Error(`order ${facts.orderId} not found for its event`);
  return rows[0]!;
}
