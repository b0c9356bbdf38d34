import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { brokerages } from './tenancy.ts';

const ref = (name: string) => bigint(name, { mode: 'number' });

/** Why an endpoint stopped receiving: its owner turned it off, it answered 410, or it failed for the whole retry window. */
export const WEBHOOK_DISABLED_REASONS = ['manual', 'gone', 'failing'] as const;

/** A brokerage's webhook endpoint (docs/WEBHOOKS.md). Secrets are kept sealed as credential secrets are. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    brokerageId: ref('brokerage_id')
      .notNull()
      .references(() => brokerages.id),
    url: text('url').notNull(),
    /** The EventKind values this endpoint receives; null: every kind, those added later included. */
    eventKinds: text('event_kinds').array(),
    enabled: boolean('enabled').notNull().default(true),
    disabledReason: text('disabled_reason', { enum: WEBHOOK_DISABLED_REASONS }),
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    /** AES-256-GCM ciphertext (src/auth/secret-box.ts), bound to the endpoint id. */
    secretCiphertext: text('secret_ciphertext').notNull(),
    /** The secret before the last rotation, still signing beside the new one until previous_secret_expires_at. */
    previousSecretCiphertext: text('previous_secret_ciphertext'),
    previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true }),
    /** Start of the current run of failed attempts; null after any acknowledged delivery. */
    failingSince: timestamp('failing_since', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('webhook_endpoints_brokerage_idx').on(t.brokerageId)],
);

/**
 * One row per event and endpoint: the durable delivery state. BullMQ jobs only say "look at this
 * (endpoint, order) now"; what is owed, in which order, lives here. order_id is null for a ping.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    endpointId: ref('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    orderId: ref('order_id'),
    seq: integer('seq').notNull(),
    eventId: text('event_id').notNull(),
    kind: text('kind').notNull(),
    /** When the event was committed: the start of the latency the metrics measure. */
    eventAt: timestamp('event_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    attempts: integer('attempts').notNull().default(0),
    /** Sent again on request (redeliver, replay): its latency is not the event's commit-to-receipt time. */
    redelivery: boolean('redelivery').notNull().default(false),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    /** A worker sending it holds it until then; a worker that died lets it go when it passes. */
    leasedUntil: timestamp('leased_until', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_endpoint_event').on(t.endpointId, t.eventId),
    index('webhook_deliveries_pending_idx')
      .on(t.endpointId, t.orderId, t.seq)
      .where(sql`delivered_at is null`),
    index('webhook_deliveries_order_idx').on(t.orderId),
  ],
);

export const WEBHOOK_OUTCOMES = ['success', 'http_error', 'timeout', 'network', 'refused_address', 'disabled'] as const;
export type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number];

/** The deliveries log: every attempt (and every disabling) of an endpoint. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    endpointId: ref('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    deliveryId: ref('delivery_id').references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    eventId: text('event_id'),
    orderId: ref('order_id'),
    attempt: integer('attempt').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    outcome: text('outcome', { enum: WEBHOOK_OUTCOMES }).notNull(),
    statusCode: integer('status_code'),
    error: text('error'),
    latencyMs: integer('latency_ms'),
  },
  (t) => [index('webhook_attempts_endpoint_idx').on(t.endpointId, t.id), index('webhook_attempts_delivery_idx').on(t.deliveryId)],
);
