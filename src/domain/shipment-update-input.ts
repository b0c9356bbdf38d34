export type UpdateCommand = { shipmentId: number; [k: string]: unknown };
