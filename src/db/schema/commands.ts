import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, check, index, integer, json, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { Actor } from '@fulfil/contract';

export const COMMAND_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;

/**
 * Stored with fillfactor 50 (drizzle/0020): the answer's version of a row then lands on the row's
 * own page, where Postgres logs only the columns that changed.
 *
 * Every command (HTTP call or upstream job) by its id. BullMQ delivers at least once, so this
 * table is where a command is known to be done: a handler that finds its id already finished
 * returns the stored result and writes nothing.
 */
export const commands = pgTable(
  'commands',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    brokerageId: bigint('brokerage_id', { mode: 'number' }).notNull(),
    /** Idempotency-Key as the caller sent it; unique per brokerage. */
    idempotencyKey: text('idempotency_key'),
    /** sha256 of the request (method, path, body) that the key was first used with. */
    requestHash: text('request_hash').notNull(),
    payload: jsonb('payload').notNull(),
    /** Who it acts for, so a job Redis lost can be rebuilt from this row (recover-lost.ts). */
    actor: jsonb('actor').$type<Actor>(),
    status: text('status', { enum: COMMAND_STATUSES }).notNull().default('queued'),
    /** The HTTP status and body a synchronous call answers with, once finished. */
    resultStatus: integer('result_status'),
    // json, not jsonb: a replayed answer keeps its keys in the order they were written.
    resultBody: json('result_body'),
    attempts: integer('attempts').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    // Only keyed commands: most have no key, and each row the index holds is two more index
    // writes per command (its insert, and the update that stores its answer, which is never HOT).
    uniqueIndex('commands_idempotency_key')
      .on(t.brokerageId, t.idempotencyKey)
      .where(sql`idempotency_key is not null`),
    // Retention ranges over when a command was sent, then keeps those that finished within the
    // retention (a command finishes after it is sent), so finished_at needs no index of its own.
    // BRIN (drizzle/0021, D-141): rows are written in the order they were sent, so a summary per
    // range of pages finds the old ones without an index entry per command. It cannot give rows
    // in order: lost-command recovery sorts the open commands it finds through commands_open_idx.
    index('commands_created_brin').using('brin', t.createdAt),
    // the order search's "has an unfinished or failed command": a small set, whatever the table's size
    index('commands_open_idx')
      .on(t.status)
      .where(sql`status <> 'succeeded'`),
  ],
);

/** Who caused a shipment event: a party through a command, or the service itself (drizzle/0013). */
export const EVENT_ACTOR_TYPES = ['party', 'system'] as const;

/** History of shipment transitions, across replacements (per-order sequence). Rows are appended and never changed. */
export const shipmentEvents = pgTable(
  'shipment_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** A random UUID (v4) drawn per event (src/db/sql/append-event.ts): unique by how it is made, not by an index (D-144). */
    eventId: text('event_id').notNull(),
    orderId: bigint('order_id', { mode: 'number' }).notNull(),
    seq: integer('seq').notNull(),
    kind: text('kind').notNull(),
    shipmentId: bigint('shipment_id', { mode: 'number' }),
    newShipmentId: bigint('new_shipment_id', { mode: 'number' }),
    fromType: text('from_type'),
    toType: text('to_type'),
    fromState: text('from_state'),
    /** Null with to_type for an event of an order that has no shipment (a refused order). */
    toState: text('to_state'),
    /** What the event says beyond its transition, by kind (EventDetails in @fulfil/contract); null when nothing. */
    details: jsonb('details'),
    /** party: a party's command caused it (brokerage, role, command id); system: the service did (a reason, nothing else). */
    actorType: text('actor_type', { enum: EVENT_ACTOR_TYPES }).notNull().default('party'),
    actorBrokerageId: bigint('actor_brokerage_id', { mode: 'number' }),
    actorUserId: bigint('actor_user_id', { mode: 'number' }),
    actorRole: text('actor_role'),
    actorReason: text('actor_reason'),
    commandId: text('command_id'),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * What this event changed in its shipment in place (a completion, a cancellation, a carrier's
     * scan keep the shipment's id): the former values of the columns it changed, by ShipmentRow
     * key; null for every other event. The events before it that left this version are shown as
     * they left it from this (src/db/sql/shipment-version.ts), so none of them is written again.
     */
    shipmentBefore: jsonb('shipment_before'),
    /** The order's mode and test clock when the event was appended (D-180): what the message carries. */
    livemode: boolean('livemode').notNull().default(true),
    testClockId: bigint('test_clock_id', { mode: 'number' }),
  },
  (t) => [
    uniqueIndex('shipment_events_order_seq').on(t.orderId, t.seq),
    check(
      'shipment_events_actor',
      sql`(actor_type = 'party' and actor_brokerage_id is not null and actor_role in ('seller', 'buyer') and command_id is not null and actor_reason is null)
        or (actor_type = 'system' and actor_brokerage_id is null and actor_user_id is null and actor_role is null and command_id is null and actor_reason is not null)`,
    ),
  ],
);
