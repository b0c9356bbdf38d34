import { eq, getTableColumns } from 'drizzle-orm';
import type { Executor } from '../client.ts';
import { shipments } from '../schema.ts';
import type { ShipmentContacts } from './contacts.ts';

export type ShipmentRow = typeof shipments.$inferSelect;

/** A shipment version with the contact rows it shows, as the reads and webhook deliveries use it. */
export interface LiveShipment {
  shipment: ShipmentRow;
  contacts: ShipmentContacts;
}
export type NewShipment = Omit<typeof shipments.$inferInsert, 'id' | 'replacedBy' | 'replacedAt' | 'createdAt'>;

export async function findShipment(ex: Executor, id: number): Promise<ShipmentRow | undefined> {
  const [row] = await ex.select().from(shipments).where(eq(shipments.id, id));
  return row;
}

// Every column null: the base a new row is built on, so a column added to the table is in it too.
const NULLS = Object.fromEntries(Object.keys(getTableColumns(shipments)).map((key) => [key, null]));

/**
 * The row a write is about to store, known before the statement runs (its id drawn earlier from
 * the sequence), so a command's answer can be built and stored by that same statement. What `v`
 * leaves out is null; it is a new version, so live, and written now.
 */
export function shipmentRowOf(id: number, { delivered, ...v }: NewShipment & { delivered?: boolean }): ShipmentRow {
  const now = new Date();
  const given = Object.fromEntries(Object.entries(v).filter(([, value]) => value !== undefined));
  return {
    ...(NULLS as Record<keyof ShipmentRow, null>),
    ...(given as NewShipment),
    id,
    replacedBy: null,
    replacedAt: null,
    createdAt: now,
    deliveredAt: delivered ? now : (v.deliveredAt ?? null),
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
