/** Every type a shipment can have; the machines (machines/shipment.ts) and the answers share it. */
export const SHIPMENT_TYPES = [
  'TBD',
  'XMobile',
  'XMobileLink',
  'XSeats',
  'Eticket',
  'LocalPickup',
  'FedEx',
  'UPS',
  'USPS',
  'ProvidedAirbill',
] as const;
export type ShipmentType = (typeof SHIPMENT_TYPES)[number];

/** The mailed types (docs/API.md §Mailed tickets): the tickets travel in an envelope, a carrier's scan delivers them. */
export const MAILED_TYPES = ['FedEx', 'UPS', 'USPS', 'ProvidedAirbill'] as const;
export type MailedType = (typeof MAILED_TYPES)[number];
export function isMailedType(type: string): type is MailedType {
  return (MAILED_TYPES as readonly string[]).includes(type);
}

/** Every state a shipment can be in; the mailed ones move by tracking events. */
export const SHIPMENT_STATES = ['pending', 'in_transit', 'exception', 'returned', 'delivered', 'canceled'] as const;
export type ShipmentState = (typeof SHIPMENT_STATES)[number];

/** What a tracking event says, from the carrier's scan or the seller (docs/API.md §Tracking events). */
export const TRACKING_STATUSES = ['in_transit', 'out_for_delivery', 'delivered', 'exception', 'returned'] as const;
export type TrackingStatus = (typeof TRACKING_STATUSES)[number];

/** Every state an order can be in; the order machine (machines/order.ts) and the answers share it. */
export const ORDER_STATES = ['pending', 'accepted', 'rejected', 'cancel_proposed', 'canceled', 'completed'] as const;
export type OrderState = (typeof ORDER_STATES)[number];
