import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { orders, shipments } from './orders.ts';

/**
 * A scan the carrier simulator planned for a test shipment with one of EasyPost's test tracking
 * codes (src/sandbox/carrier-simulator.ts, D-195): due at `due_at` on the order's clock, applied
 * once through the carrier's event path and marked `fired_at`. A durable timer like the others.
 */
export const simulatedScans = pgTable(
  'simulated_scans',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    orderId: bigint('order_id', { mode: 'number' })
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    shipmentId: bigint('shipment_id', { mode: 'number' })
      .notNull()
      .references(() => shipments.id, { onDelete: 'cascade' }),
    /** Its place among the shipment's planned scans (a reissue plans more after the first). */
    seq: integer('seq').notNull(),
    trackingCode: text('tracking_code').notNull(),
    /** A tracking status (docs/API.md). */
    status: text('status').notNull(),
    description: text('description'),
    location: text('location'),
    /** The estimate the scan carries, as a carrier's `est_delivery_date`. */
    estimatedDeliveryAt: timestamp('estimated_delivery_at', { withTimezone: true }),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    firedAt: timestamp('fired_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('simulated_scans_once').on(t.shipmentId, t.seq),
    index('simulated_scans_unfired_idx')
      .on(t.orderId, t.dueAt, t.seq)
      .where(sql`${t.firedAt} is null`),
    index('simulated_scans_due_idx')
      .on(t.dueAt, t.orderId)
      .where(sql`${t.firedAt} is null`),
  ],
);
