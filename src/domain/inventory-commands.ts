export type InventoryUpsertCommand = { officeId: number; [k: string]: unknown };
export type InventoryMapCommand = { officeId: number; [k: string]: unknown };
export type InventoryRemoveCommand = { officeId: number; remoteIds: number[] };
