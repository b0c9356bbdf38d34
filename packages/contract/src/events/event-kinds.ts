import { z } from 'zod';

/**
 * Every kind of shipment event, defined once: the TypeScript types, the zod enums of the answers,
 * the webhook endpoint filters and the OpenAPI document (its `webhooks` section has one entry per
 * kind) all derive from this list. A kind is added here and nowhere else; a webhook endpoint that
 * receives every kind receives it without being changed.
 */
export const SHIPMENT_EVENT_KINDS = ['created', 'updated', 'pickup_details', 'delivered', 'completed'] as const;

export type ShipmentEventKind = (typeof SHIPMENT_EVENT_KINDS)[number];

/** The public type of an event kind, as event objects (webhooks, GET /v9/events) name it. */
export type ShipmentEventType = `shipment.${ShipmentEventKind}`;

export function eventTypeOf<K extends ShipmentEventKind>(kind: K): `shipment.${K}` {
  return `shipment.${kind}`;
}

type TypesOf<K extends readonly string[]> = { readonly [I in keyof K]: `shipment.${K[I] & string}` };

// map() gives an array of the union; the tuple type keeps each type at its kind's place.
export const SHIPMENT_EVENT_TYPES = SHIPMENT_EVENT_KINDS.map(eventTypeOf) as unknown as TypesOf<typeof SHIPMENT_EVENT_KINDS>;

export const shipmentEventKind = z.enum(SHIPMENT_EVENT_KINDS);
export const shipmentEventType = z.enum(SHIPMENT_EVENT_TYPES);

export function isShipmentEventKind(value: string): value is ShipmentEventKind {
  return (SHIPMENT_EVENT_KINDS as readonly string[]).includes(value);
}
