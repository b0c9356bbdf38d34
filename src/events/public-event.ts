import type { Executor } from '../db/client.ts';
import type { shipmentEvents } from '../db/schema.ts';
import { shipmentVersions, type LiveShipment } from '../read/live-shipment.ts';
import { shipmentReadJson } from '../read/shipment-json.ts';
import { eventTypeOf, type EventActor, type ShipmentEventKind, type ShipmentEventType } from '@fulfil/contract';

export type ShipmentEventRow = typeof shipmentEvents.$inferSelect;

/**
 * One shipment event as a party of its order may see it: the fields of the events stream's
 * messages, except that who acted inside the other party (its user, its command id) is that
 * party's own business, so a brokerage sees user_id and command_id of its own events only. A
 * system event (no party caused it) shows its reason to both parties, and no command.
 * GET /v9/orders/:id/events lists these; the event objects of webhooks and the feed carry one.
 */
export function eventItem(e: ShipmentEventRow, brokerageId: number) {
  const own = e.actorType === 'party' && e.actorBrokerageId === brokerageId;
  return {
    event_id: e.eventId,
    seq: e.seq,
    kind: e.kind as ShipmentEventKind,
    shipment_id: e.shipmentId,
    new_shipment_id: e.newShipmentId,
    from_type: e.fromType,
    from_state: e.fromState,
    to_type: e.toType,
    to_state: e.toState,
    actor: actorOf(e, own),
    command_id: own ? e.commandId : null,
    at: e.at.toISOString(),
  };
}

/** The row's actor; the table's check (shipment_events_actor) guarantees the columns each form needs. */
function actorOf(e: ShipmentEventRow, own: boolean): EventActor {
  if (e.actorType === 'system') return { type: 'system', reason: e.actorReason! };
  return { type: 'party', role: e.actorRole as 'seller' | 'buyer', brokerage_id: e.actorBrokerageId!, user_id: own ? e.actorUserId : null };
}

export type EventItem = ReturnType<typeof eventItem>;
export type ShipmentJson = ReturnType<typeof shipmentReadJson>;

/** The event object webhooks deliver and GET /v9/events lists (docs/WEBHOOKS.md, "Event objects"). */
export interface PublicEvent {
  /** The event id: the same for every delivery of the event and in the feed, for de-duplication. */
  id: string;
  type: ShipmentEventType;
  created_at: string;
  order_id: number;
  seq: number;
  data: {
    event: EventItem;
    /**
     * The shipment version the event left (new_shipment_id) as GET /v9/shipments/:id shows it,
     * read when the object is built: a later completion, which changes that row in place, shows.
     */
    shipment: ShipmentJson | null;
  };
}

/**
 * The event objects `brokerageId` (a party of each row's order; the caller checks that) may
 * see, in the order of `rows`. The shipments are read in one statement for the whole batch.
 */
export async function publicEventsFor(ex: Executor, brokerageId: number, rows: readonly ShipmentEventRow[]): Promise<PublicEvent[]> {
  const versions = await shipmentVersions(
    ex,
    rows.flatMap((r) => (r.newShipmentId === null ? [] : [r.newShipmentId])),
  );
  return rows.map((row) => publicEventOf(row, brokerageId, row.newShipmentId === null ? undefined : versions.get(row.newShipmentId)));
}

/** One event object, given the shipment version the event left (read by the caller). */
export function publicEventOf(row: ShipmentEventRow, brokerageId: number, version: LiveShipment | undefined): PublicEvent {
  const item = eventItem(row, brokerageId);
  return {
    id: row.eventId,
    type: eventTypeOf(item.kind),
    created_at: item.at,
    order_id: row.orderId,
    seq: row.seq,
    data: { event: item, shipment: version ? shipmentReadJson(version.shipment, version.contacts) : null },
  };
}
