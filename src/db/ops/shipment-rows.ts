import { eq, sql } from 'drizzle-orm';
import type { Executor, Tx } from '../client.ts';
import { query } from '../client.ts';
import { shipments } from '../schema.ts';

export type ShipmentRow = typeof shipments.$inferSelect;
export type NewShipment = Omit<typeof shipments.$inferInsert, 'id' | 'replacedBy' | 'replacedAt' | 'createdAt'>;

export async function findShipment(ex: Executor, id: number): Promise<ShipmentRow | undefined> {
  const [row] = await ex.select().from(shipments).where(eq(shipments.id, id));
  return row;
}

export async function insertShipment(tx: Tx, values: NewShipment): Promise<ShipmentRow> {
  const [row] = await tx.insert(shipments).values(values).returning();
  return row!;
}

/**
 * Rule U1: the old row becomes a tombstone naming its replacement, and the replacement is a new
 * row with a new id. The id is drawn first so the tombstone can point at it before the new row
 * exists (the one-live-shipment-per-order index forbids two live rows even for an instant).
 */
export async function replaceShipment(tx: Tx, old: ShipmentRow, values: NewShipment): Promise<ShipmentRow> {
  const [{ id }] = (await query<{ id: number }>(
    tx,
    sql`select nextval(pg_get_serial_sequence('shipments', 'id'))::bigint as id`,
  )) as [{ id: number }];
  const newId = Number(id);
  await tx.update(shipments).set({ replacedBy: newId, replacedAt: new Date() }).where(eq(shipments.id, old.id));
  const [row] = await tx.insert(shipments).values({ ...values, id: newId }).returning();
  return row!;
}

/** Changes a shipment in place (complete is not an update: the id stays, docs/API.md §Rule U1). */
export async function setShipment(tx: Tx, id: number, values: Partial<NewShipment>): Promise<ShipmentRow> {
  const [row] = await tx.update(shipments).set(values).where(eq(shipments.id, id)).returning();
  return row!;
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
