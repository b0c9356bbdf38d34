import type { ShipmentContacts } from '../db/ops/contacts.ts';
import type { ShipmentRow } from '../db/ops/shipment-rows.ts';
import { isMailedType } from '@fulfil/contract';
import { buyerPickupJson, mailedShipmentJson, mobileTransferJson, sellerPickupJson } from '../domain/shipment-response.ts';

type NotShown = { notShown: string };

/**
 * Where each column of a shipment shows in a read: its JSON key (a contact row's id shows as the
 * contact it names), or why it is not shown. Every column must be here, so a column added to the
 * table is a compile error until someone decides; the column-parity test checks each entry
 * against what shipmentReadJson really renders.
 */
export const SHIPMENT_READ_FIELDS = {
  id: 'id',
  orderId: { notShown: 'a shipment is read by its id or through its order: the caller has the order already' },
  type: 'type',
  state: 'state',
  snapshot: { notShown: "the shipment machine's own record; type and state are what it says" },
  replacedBy: { notShown: 'a read shows the live version; a replaced id answers 410 with the live id, events name it' },
  replacedAt: { notShown: "the replacing event's time" },
  shipToName: 'ship_to_name',
  emailAddressId: 'email_address',
  xMobileLink: 'x_mobile_link',
  transferSource: { notShown: 'the seller tells it on update or complete; no response of the interface shows it' },
  shipFromName: 'ship_from_name',
  shipFromAddressId: 'ship_from_address',
  shipFromPhoneNumberId: 'ship_from_phone_number',
  phoneNumberId: 'phone_number',
  pickupTimeRange: 'pickup_time_range',
  pickupInstructions: 'pickup_instructions',
  notes: 'notes',
  shipToAddressId: 'ship_to_address',
  serviceType: 'service_type',
  trackingNumber: 'tracking_number',
  carrierTrackerId: { notShown: "the carrier account's own id; whether the carrier tracks it shows in the tracking events' source" },
  carrierLabelId: { notShown: "the carrier account's own id of the label; GET /v9/shipments/:id/airbill serves the label" },
  estimatedDeliveryAt: 'estimated_delivery_at',
  createdAt: { notShown: "the event that made this version has its time (the order's events)" },
  deliveredAt: { notShown: "the delivering event's time" },
} as const satisfies Record<keyof ShipmentRow, string | NotShown>;

/**
 * A shipment as a read shows it: every field the responses about it showed, built by the same
 * renderers, plus `state`. A local pickup shows both parties' details to both parties, since
 * each needs the other's part to meet (the buyer where and when, the seller whom to expect).
 */
export function shipmentReadJson(s: ShipmentRow, c: ShipmentContacts) {
  if (s.type === 'LocalPickup') {
    const { id, url, type, ...seller } = sellerPickupJson(s, c);
    const { id: _id, url: _url, type: _type, ...buyer } = buyerPickupJson(s, c);
    return { id, url, type, state: s.state, ...seller, ...buyer };
  }
  if (isMailedType(s.type)) return mailedShipmentJson(s, c);
  const shown = mobileTransferJson(s, c);
  return s.xMobileLink ? { ...shown, x_mobile_link: s.xMobileLink } : shown;
}
