/** Every type a shipment can have; the machines (machines/shipment.ts) and the answers share it. */
export const SHIPMENT_TYPES = ['TBD', 'XMobile', 'XMobileLink', 'XSeats', 'Eticket', 'LocalPickup'] as const;
export type ShipmentType = (typeof SHIPMENT_TYPES)[number];
