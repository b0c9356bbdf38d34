import { getTableColumns, sql } from 'drizzle-orm';
import { shipmentEvents } from '../db/schema.ts';
import { shipmentVersionAsLeftJson } from '../db/sql/shipment-version.ts';
import type { LiveShipment } from '../read/live-shipment.ts';
import { shipmentReadJson } from '../read/shipment-json.ts';
import { eventTypeOf, type EventActor, type EventDetails, type EventKind, type EventType } from '@fulfil/contract';

/** An event's row as its readers select it: the shipment version it left comes apart (shipmentAsLeft, below). */
export type ShipmentEventRow = Omit<typeof shipmentEvents.$inferSelect, 'shipmentBefore'>;
const { shipmentBefore: _changed, ...eventRowColumns } = getTableColumns(shipmentEvents);
/** The select list of a ShipmentEventRow (`ex.select(shipmentEventColumns).from(shipmentEvents)`). */
export const shipmentEventColumns = eventRowColumns;

/**
 * The shipment version an event left, with its contacts (shipmentVersionJson's form), as a column
 * of the statement that reads the event (shipment-version.ts, shipmentVersionAsLeftJson). One
 * statement, so a completion committing between two reads cannot show the completed shipment in
 * an earlier event.
 */
export const shipmentAsLeft = sql<unknown>`${sql.raw(shipmentVersionAsLeftJson('"shipment_events"'))}`;

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
    kind: e.kind as EventKind,
    shipment_id: e.shipmentId,
    new_shipment_id: e.newShipmentId,
    from_type: e.fromType,
    from_state: e.fromState,
    to_type: e.toType,
    to_state: e.toState,
    details: (e.details ?? null) as EventDetails | null,
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
  type: EventType;
  created_at: string;
  order_id: number;
  seq: number;
  /** False for an event of a test order (test mode, D-148). */
  livemode: boolean;
  /** The test clock its order lives at (D-180); null: the wall clock. */
  test_clock: number | null;
  data: {
    event: EventItem;
    /**
     * The shipment version the event left (new_shipment_id) as GET /v9/shipments/:id showed it
     * then: a later completion, which changes that row in place, does not show here.
     */
    shipment: ShipmentJson | null;
  };
}

/** One event object, given the shipment version the event left (read by the caller with shipmentAsLeft). */
export function publicEventOf(row: ShipmentEventRow, brokerageId: number, version: LiveShipment | undefined): PublicEvent {
  const item = eventItem(row, brokerageId);
  return {
    id: row.eventId,
    type: eventTypeOf(item.kind),
    created_at: item.at,
    order_id: row.orderId,
    seq: row.seq,
    livemode: row.livemode,
    test_clock: row.testClockId === null ? null : Number(row.testClockId),
    data: { event: item, shipment: version ? shipmentReadJson(version.shipment, version.contacts) : null },
  };
}
