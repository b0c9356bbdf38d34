import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { TRACKING_STATUSES } from '@fulfil/contract';

const ref = (name: string) => bigint(name, { mode: 'number' });

export const TRACKING_SOURCES = ['carrier', 'seller'] as const;
export const TIME_FLAGS = ['out_of_range', 'future', 'before_shipment'] as const;
export type TimeFlag = (typeof TIME_FLAGS)[number];
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
    recordedAt: timestamp('recorded_at', { withTimezone: true })
      .notNull()
      .default(sql`fulfil_now()`),
    /** Stored while its effect had to wait (the order's cancellation proposed); applied, it is false again (D-152). */
    held: boolean('held').notNull().default(false),
    /** Why the carrier's time was not used (`out_of_range`, `future`, `before_shipment`): occurred_at is then the time it came. */
    timeFlag: text('time_flag', { enum: TIME_FLAGS }),
    /** The time the carrier gave, as given, when it was not used. */
    reportedTime: text('reported_time'),
    /** A scan of an envelope replaced by a reissue (its number revoked, D-155): shown, completes nothing. */
    revoked: boolean('revoked').notNull().default(false),
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
    /** An event that matched no live shipment (`unknown_tracking_code`): its scans, for the operators. */
    scans: jsonb('scans'),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('carrier_events_once').on(t.provider, t.eventId), index('carrier_events_received_idx').on(t.receivedAt)],
);

export const CLAIM_STATES = ['live', 'released', 'revoked'] as const;

/**
 * Who holds a tracking number (D-150): one row per envelope, keyed by its carrier and its number
 * as that carrier reads it (tracking-numbers.ts numberKey). `live`: the order's shipment holds it,
 * for good once shipped; `released`: dropped before shipping, free again; `revoked`: the envelope was
 * replaced by a reissue, its scans are still stored against the order and complete nothing.
 */
export const trackingClaims = pgTable(
  'tracking_claims',
  {
    carrier: text('carrier').notNull(),
    numberKey: text('number_key').notNull(),
    trackingNumber: text('tracking_number').notNull(),
    orderId: ref('order_id').notNull(),
    shipmentId: ref('shipment_id').notNull(),
    /** The carrier account's tracker of this number: a webhook is matched by it first. */
    trackerId: text('tracker_id'),
    state: text('state', { enum: CLAIM_STATES }).notNull().default('live'),
    claimedAt: timestamp('claimed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'tracking_claims_pkey', columns: [t.carrier, t.numberKey] }),
    index('tracking_claims_tracker_idx')
      .on(t.trackerId)
      .where(sql`${t.trackerId} is not null`),
    index('tracking_claims_order_idx').on(t.orderId),
  ],
);

export const LABEL_PURCHASE_STATES = ['buying', 'bought', 'failed', 'voided'] as const;

/**
 * A label bought through the carrier account, claimed before the carrier is called (D-153): the
 * request that inserts the row buys; any other waits for its label. `bought` keeps what the
 * carrier answered, so a command lost after the purchase attaches the same label; `voided`: the
 * label was refused by the command and refunded through the carrier.
 */
export const labelPurchases = pgTable('label_purchases', {
  shipmentId: ref('shipment_id').primaryKey(),
  state: text('state', { enum: LABEL_PURCHASE_STATES }).notNull().default('buying'),
  claimedAt: timestamp('claimed_at', { withTimezone: true }).notNull().defaultNow(),
  provider: text('provider'),
  labelId: text('label_id'),
  trackingCode: text('tracking_code'),
  trackerId: text('tracker_id'),
  service: text('service'),
  reason: text('reason'),
  rate: text('rate'),
  estimatedDeliveryAt: timestamp('estimated_delivery_at', { withTimezone: true }),
  sha256: text('sha256'),
  /** What happened to a voided label (the carrier's refund status), or why a purchase failed. */
  note: text('note'),
});
