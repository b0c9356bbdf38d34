import { eq } from 'drizzle-orm';
import type { Executor } from '../client.ts';
import { shipments } from '../schema.ts';

export type ShipmentRow = typeof shipments.$inferSelect;
export type NewShipment = Omit<typeof shipments.$inferInsert, 'id' | 'replacedBy' | 'replacedAt' | 'createdAt'>;

export async function findShipment(ex: Executor, id: number): Promise<ShipmentRow | undefined> {
  const [row] = await ex.select().from(shipments).where(eq(shipments.id, id));
  return row;
}

/**
 * The row a write is about to store, known before the statement runs (its id drawn earlier from
 * the sequence), so a command's answer can be built and stored by that same statement.
 */
export function shipmentRowOf(id: number, v: NewShipment & { delivered?: boolean }): ShipmentRow {
  const now = new Date();
  return {
    id,
    orderId: v.orderId,
    type: v.type,
    state: v.state,
    snapshot: v.snapshot,
    replacedBy: null,
    replacedAt: null,
    shipToName: v.shipToName ?? null,
    emailAddressId: v.emailAddressId ?? null,
    xMobileLink: v.xMobileLink ?? null,
    transferSource: v.transferSource ?? null,
    shipFromName: v.shipFromName ?? null,
    shipFromAddressId: v.shipFromAddressId ?? null,
    shipFromPhoneNumberId: v.shipFromPhoneNumberId ?? null,
    phoneNumberId: v.phoneNumberId ?? null,
    pickupTimeRange: v.pickupTimeRange ?? null,
    pickupInstructions: v.pickupInstructions ?? null,
    notes: v.notes ?? null,
    createdAt: now,
    deliveredAt: v.delivered ? now : (v.deliveredAt ?? null),
  };
}

/** The live shipment an id leads to, and the ids passed on the way (oldest first). */
export async function followReplacements(ex: Executor, id: number): Promise<{ live: ShipmentRow; chain: number[] } | undefined> {
  const chain: number[] = [];
  let row = await findShipment(ex, id);
  while (row && row.replacedBy !== null) {
    chain.push(row.id);
    row = await findShipment(ex, row.replacedBy);
  }
  return row ? { live: row, chain } : undefined;
}
