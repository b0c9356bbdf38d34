/** Every type a shipment can have; the machines (machines/shipment.ts) and the answers share it. */
export const SHIPMENT_TYPES = ['TBD', 'XMobile', 'XMobileLink', 'XSeats', 'Eticket', 'LocalPickup'] as const;
export type ShipmentType = (typeof SHIPMENT_TYPES)[number];

/** Every state an order can be in; the order machine (machines/order.ts) and the answers share it. */
export const ORDER_STATES = ['pending', 'accepted', 'rejected', 'cancel_proposed', 'canceled', 'completed'] as const;
export type OrderState = (typeof ORDER_STATES)[number];
