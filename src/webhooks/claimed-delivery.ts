import type { ShipmentEventRow } from '../events/public-event.ts';
import type { SealedSecrets } from './endpoint-secrets.ts';

/** A delivery claimed for sending (chain-sql.ts claims it): the event, its endpoint and their secrets. */
export interface Claimed extends SealedSecrets {
  id: number;
  orderId: number | null;
  seq: number;
  eventId: string;
  kind: string;
  eventAtMs: number;
  attempts: number;
  redelivery: boolean;
  url: string;
  brokerageId: number;
  /** The event's shipment_events row, null for a ping (and for an event missing there). */
  evId: number | null;
  shipmentId: number | null;
  newShipmentId: number | null;
  fromType: string | null;
  toType: string | null;
  fromState: string | null;
  toState: string | null;
  actorType: ShipmentEventRow['actorType'] | null;
  actorBrokerageId: number | null;
  actorUserId: number | null;
  actorRole: string | null;
  actorReason: string | null;
  commandId: string | null;
  details: unknown;
  evAtMs: number | null;
  /** The event's mode and test clock (D-180); a ping: its endpoint's mode, no clock. */
  livemode: boolean;
  testClockId: number | null;
  /** A test clock event's clock as the event left it (src/sandbox/clock-events.ts); null otherwise. */
  clockBody: unknown;
  /** The shipment version the event left, with its contacts (shipment-version.ts); null for none. */
  version: unknown;
}
