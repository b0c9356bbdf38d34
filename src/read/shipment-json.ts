import type { ShipmentContacts } from '../db/ops/contacts.ts';
import type { ShipmentRow } from '../db/ops/shipment-rows.ts';
import { buyerPickupJson, mobileTransferJson, sellerPickupJson } from '../domain/shipment-response.ts';

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
  const shown = mobileTransferJson(s, c);
  return s.xMobileLink ? { ...shown, x_mobile_link: s.xMobileLink } : shown;
}
