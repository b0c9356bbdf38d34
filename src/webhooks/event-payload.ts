import { clockEventPayload } from '../sandbox/clock-events.ts';
import { publicEventOf, type ShipmentEventRow } from '../events/public-event.ts';
import { toShipmentVersion } from '../db/sql/shipment-version.ts';
import type { Claimed } from './claimed-delivery.ts';

/** The body of a claimed delivery: the event object as the endpoint's brokerage may see it, or a ping. */
export function payloadOf(endpointId: number, head: Claimed): object {
  if (head.orderId === null) {
    // A test clock's own event (D-181), or a ping.
    if (head.kind !== 'ping') return clockEventPayload(head, head.clockBody);
    return { id: head.eventId, type: 'ping', created_at: new Date(head.eventAtMs).toISOString(), data: { endpoint_id: endpointId } };
  }
  const row = eventRow(head);
  if (!row) throw new Error(`event ${head.eventId} is not in shipment_events`);
  return publicEventOf(row, head.brokerageId, toShipmentVersion(head.version));
}

/** The shipment_events row the claim read beside the delivery. */
function eventRow(c: Claimed): ShipmentEventRow | undefined {
  if (c.evId === null || c.evAtMs === null || c.orderId === null || c.actorType === null) return undefined;
  return {
    id: c.evId,
    eventId: c.eventId,
    orderId: c.orderId,
    seq: c.seq,
    kind: c.kind,
    shipmentId: c.shipmentId,
    newShipmentId: c.newShipmentId,
    fromType: c.fromType,
    toType: c.toType,
    fromState: c.fromState,
    toState: c.toState,
    actorType: c.actorType,
    actorBrokerageId: c.actorBrokerageId,
    actorUserId: c.actorUserId,
    actorRole: c.actorRole,
    actorReason: c.actorReason,
    commandId: c.commandId,
    details: c.details,
    at: new Date(c.evAtMs),
    livemode: c.livemode,
    testClockId: c.testClockId,
  };
}
