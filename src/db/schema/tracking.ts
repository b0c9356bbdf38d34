import { bigint, bigserial, boolean, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { TRACKING_STATUSES } from '@fulfil/contract';

const ref = (name: string) => bigint(name, { mode: 'number' });

export const TRACKING_SOURCES = ['carrier', 'seller'] as const;
export type TrackingSource = (typeof TRACKING_SOURCES)[number];

/**
 * Every tracking event of a mailed shipment, once: a carrier's scan (from its webhook) or the
 * seller's report. A carrier resends its whole list of scans with each update, so a scan is kept
 * once by (shipment, source, status, when). `seller_claim` marks a seller's `delivered` on a
 * shipment the carrier tracks: recorded, shown, but not what completes the order (D-112).
 */
export const trackingEvents = pgTable(
  'tracking_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    orderId: ref('order_id').notNull(),
    shipmentId: ref('shipment_id').notNull(),
    source: text('source', { enum: TRACKING_SOURCES }).notNull(),
    status: text('status', { enum: TRACKING_STATUSES }).notNull(),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull(),
    location: text('location'),
    description: text('description'),
    sellerClaim: boolean('seller_claim').notNull().default(false),
    /** The carrier's event id (EasyPost `evt_…`) that first brought this scan. */
    carrierEventId: text('carrier_event_id'),
    recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('tracking_events_once').on(t.shipmentId, t.source, t.status, t.occurredAt),
    index('tracking_events_order_idx').on(t.orderId, t.occurredAt),
  ],
);

/** Carrier webhook events already taken (EasyPost retries): one row per provider and event id. */
export const carrierEvents = pgTable(
  'carrier_events',
  {
    provider: text('provider').notNull(),
    eventId: text('event_id').notNull(),
    trackingCode: text('tracking_code'),
    /** What the event did: `recorded` (its scans stored), `unknown_tracking_code`, `ignored`. */
    outcome: text('outcome').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('carrier_events_once').on(t.provider, t.eventId), index('carrier_events_received_idx').on(t.receivedAt)],
);
