import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, date, index, integer, jsonb, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { addresses, emailAddresses, phoneNumbers } from './contact.ts';
import { ORDER_STATES, SHIPMENT_STATES, SHIPMENT_TYPES } from '../../../machines/index.ts';
import { testClocks } from './sandbox.ts';
import { brokerages, offices } from './tenancy.ts';

const ref = (name: string) => bigint(name, { mode: 'number' });

export const DELIVERY_METHODS = ['tbd', 'flash', 'local_pickup'] as const;
// The machines own these names; the columns only store them.
export { ORDER_STATES, SHIPMENT_STATES, SHIPMENT_TYPES } from '../../../machines/index.ts';

// Stored with fillfactor 85 (drizzle/0020): room on each page for the row's next version, so an
// update that changes no indexed column stays on its page as a HOT update.
export const orders = pgTable(
  'orders',
  {
    id: ref('id').primaryKey(),
    oid: text('oid').notNull().unique(),
    sellerOfficeId: ref('seller_office_id')
      .notNull()
      .references(() => offices.id),
    buyerBrokerageId: ref('buyer_brokerage_id')
      .notNull()
      .references(() => brokerages.id),
    delivery: text('delivery', { enum: DELIVERY_METHODS }).notNull(),
    quantity: integer('quantity').notNull(),
    recipientName: text('recipient_name').notNull(),
    recipientEmail: text('recipient_email').notNull(),
    state: text('state', { enum: ORDER_STATES }).notNull().default('pending'),
    /** Persisted snapshot of machines/order.ts; null until the first transition. */
    snapshot: jsonb('snapshot'),
    /**
     * The user (of the seller's brokerage) who accepted it. No foreign key (D-142): the accept reads
     * it in its own transaction (src/db/sql/lock-order.ts) and refuses any other; no user is ever deleted.
     */
    reviewerId: ref('reviewer_id'),
    seats: jsonb('seats').$type<number[]>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * Set by a trigger on every update of the row (each transition bumps event_seq), for the
     * operators' search. Not indexed: an update that leaves the indexed columns alone (every event
     * that does not change the order's state) is then a HOT update, no index written; the search's
     * filter on it walks the creation index (slower on its later pages: docs/DECISIONS.md D-139).
     */
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true }),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    /** The seq of the order's latest shipment event: the next event takes event_seq + 1 under the order lock. */
    eventSeq: integer('event_seq').notNull().default(0),
    /** The day the tickets must be in the buyer's hands (the seller may move it); src/domain/deadline-policy.ts. */
    inHandOn: date('in_hand_on', { mode: 'string' }),
    eventStartsAt: timestamp('event_starts_at', { withTimezone: true }),
    /** The deadline: from in_hand_on by the policy, or given with the order. Null: no deadline, no timers. */
    deliverBy: timestamp('deliver_by', { withTimezone: true }),
    /** When the reminder (shipment.due_soon) is due; the deadline's timer is due at deliver_by. */
    dueSoonAt: timestamp('due_soon_at', { withTimezone: true }),
    /** Set under the order's lock with the event: a timer fires its event once (src/timers/). */
    dueSoonFiredAt: timestamp('due_soon_fired_at', { withTimezone: true }),
    overdueFiredAt: timestamp('overdue_fired_at', { withTimezone: true }),
    rejectionReason: text('rejection_reason'),
    rejectionNotes: text('rejection_notes'),
    /** When the order was rejected or canceled. */
    closedAt: timestamp('closed_at', { withTimezone: true }),
    /** A seller's `delivered` on an envelope no carrier tracks waits for the buyer until then (D-156). */
    receiptConfirmBy: timestamp('receipt_confirm_by', { withTimezone: true }),
    /** False for a test order (D-148): its parties are a sandbox twin and the simulated counterparty. */
    livemode: boolean('livemode').notNull().default(true),
    /** The test clock the order lives at (D-180); null: the wall clock. */
    testClockId: ref('test_clock_id').references(() => testClocks.id),
  },
  // The operators' order search (src/ops/order-search.ts) pages newest first by (created_at, id),
  // alone or within one state, seller office or buyer brokerage; these indexes give each such page
  // as one index range scan.
  (t) => [
    index('orders_created_idx').on(t.createdAt, t.id),
    index('orders_state_created_idx').on(t.state, t.createdAt, t.id),
    index('orders_seller_office_created_idx').on(t.sellerOfficeId, t.createdAt, t.id),
    index('orders_buyer_brokerage_created_idx').on(t.buyerBrokerageId, t.createdAt, t.id),
    index('orders_open_deliver_by_idx')
      .on(t.deliverBy, t.id)
      .where(sql`${t.state} in ('pending', 'accepted', 'cancel_proposed') and ${t.deliverBy} is not null`),
    index('orders_receipt_confirm_by_idx')
      .on(t.receiptConfirmBy, t.id)
      .where(sql`${t.receiptConfirmBy} is not null`),
    index('orders_test_clock_idx')
      .on(t.testClockId, t.id)
      .where(sql`${t.testClockId} is not null`),
  ],
);

/**
 * Stored with fillfactor 85 (drizzle/0020): a completion changes its row in place, and the tombstone
 * of a replaced version is a new version of its row; both stay on their page with room there.
 *
 * One row per version of a shipment. An update (rule U1) inserts a new row and turns the old one
 * into a tombstone whose replaced_by names the new row; the live shipment of an order is the row
 * with replaced_by null, and the partial unique index makes a second live one impossible.
 */
export const shipments = pgTable(
  'shipments',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    orderId: ref('order_id').notNull(),
    type: text('type', { enum: SHIPMENT_TYPES }).notNull(),
    state: text('state', { enum: SHIPMENT_STATES }).notNull(),
    /** Persisted snapshot of machines/shipment.ts. */
    snapshot: jsonb('snapshot').notNull(),
    replacedBy: ref('replaced_by'),
    replacedAt: timestamp('replaced_at', { withTimezone: true }),
    shipToName: text('ship_to_name'),
    emailAddressId: ref('email_address_id').references(() => emailAddresses.id),
    xMobileLink: text('x_mobile_link'),
    transferSource: text('transfer_source'),
    shipFromName: text('ship_from_name'),
    shipFromAddressId: ref('ship_from_address_id').references(() => addresses.id),
    shipFromPhoneNumberId: ref('ship_from_phone_number_id').references(() => phoneNumbers.id),
    phoneNumberId: ref('phone_number_id').references(() => phoneNumbers.id),
    pickupTimeRange: text('pickup_time_range'),
    pickupInstructions: text('pickup_instructions'),
    notes: text('notes'),
    // Mailed delivery (docs/API.md §Mailed tickets): where the envelope goes, how, and its tracking.
    shipToAddressId: ref('ship_to_address_id').references(() => addresses.id),
    serviceType: text('service_type'),
    trackingNumber: text('tracking_number'),
    /** The carrier account's tracker (EasyPost `trk_…`): set, the carrier's scans decide delivery, not the seller's word. */
    carrierTrackerId: text('carrier_tracker_id'),
    /** The label bought through the carrier account (EasyPost `shp_…`): a second purchase answers this one. */
    carrierLabelId: text('carrier_label_id'),
    /** The carrier's latest estimate of delivery. */
    estimatedDeliveryAt: timestamp('estimated_delivery_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`fulfil_now()`),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (t) => [
    // One key for both lookups by order (drizzle/0021, D-140): every version of an order is its
    // leading column, the live one `order_id = … and replaced_by is null`. Nulls not distinct, so
    // an order has at most one live shipment; a tombstone names the version inserted to replace
    // it, which no other row names.
    unique('shipments_order_replaced_by_key').on(t.orderId, t.replacedBy).nullsNotDistinct(),
    // A carrier's webhook names the envelope by its tracking number only.
    index('shipments_tracking_number_idx')
      .on(t.trackingNumber)
      .where(sql`${t.trackingNumber} is not null and ${t.replacedBy} is null`),
  ],
);
