import type { InventoryMapInput, InventoryUpsertInput } from '@fulfil/contract';
import { checkId } from './options.ts';

/**
 * Every method of FulfilmentClient takes one object of one shape (D-167): the HTTP route's body
 * with the ids of its path beside it, under their snake_case names (`order_id`, `shipment_id`,
 * `issue_id`, `office_id`), as the command payloads and the HTTP API spell them.
 */
export type WithShipmentId<B> = B extends unknown ? { shipment_id: number } & B : never;

export interface InventoryUpsertArgs {
  office_id: number;
  records: InventoryUpsertInput['records'];
}
export interface InventoryMapArgs {
  office_id: number;
  mappings: InventoryMapInput['mappings'];
}
export interface InventoryRemoveArgs {
  office_id: number;
  remote_ids: number[];
}

/** The path id apart from the body, checked; the rest of the object is the body, which the route's schema checks. */
export function splitShipmentId(command: { shipment_id: number }): { id: number; body: Record<string, unknown> } {
  const { shipment_id, ...body } = (command ?? {}) as { shipment_id: number } & Record<string, unknown>;
  return { id: checkId(shipment_id, 'shipment_id'), body };
}

/** The inventory commands' payloads spell their keys as the service's workers read them (officeId, remoteIds). */
export function inventoryCommand(
  command: { office_id: number } & Partial<Record<'records' | 'mappings' | 'remote_ids', unknown>>,
  list: 'records' | 'mappings' | 'remote_ids',
): Record<string, unknown> {
  const { office_id, [list]: items, ...rest } = (command ?? {}) as Record<string, unknown>;
  return { officeId: checkId(office_id, 'office_id'), [list === 'remote_ids' ? 'remoteIds' : list]: items, ...rest };
}
