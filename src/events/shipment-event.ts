export const SHIPMENT_EVENT_TOPIC = 'shipment.transition';

export type ShipmentEventKind = 'created' | 'updated' | 'pickup_details' | 'delivered' | 'completed';

/**
 * A shipment transition as consumers of the fulfil-events queue receive it, and as the order's
 * history keeps it (shipment_events, column for column). db/sql/append-event.ts writes both.
 */
export interface ShipmentEventMessage {
  event_id: string;
  topic: typeof SHIPMENT_EVENT_TOPIC;
  order_id: number;
  seq: number;
  kind: ShipmentEventKind;
  shipment_id: number | null;
  new_shipment_id: number;
  from_type: string | null;
  from_state: string | null;
  to_type: string;
  to_state: string;
  actor: { brokerage_id: number; user_id: number | null; role: 'seller' | 'buyer' };
  command_id: string;
  at: string;
}
