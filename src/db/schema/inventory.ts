import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  date,
  index,
  integer,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { offices } from './tenancy.ts';

const money = (name: string) => numeric(name, { precision: 14, scale: 2 });

/**
 * A ticket group as an office sent it. `pk` is internal; `id` is the service's ticket-group id
 * and is null until the group is mapped (with event_id). The indexes serve keyset paging:
 * default mode by (office_id, remote_id), filtered by mapping; detailed mode by (office_id, id).
 */
export const ticketGroups = pgTable(
  'ticket_groups',
  {
    pk: bigserial('pk', { mode: 'number' }).primaryKey(),
    officeId: bigint('office_id', { mode: 'number' })
      .notNull()
      .references(() => offices.id),
    remoteId: bigint('remote_id', { mode: 'number' }).notNull(),
    id: bigint('id', { mode: 'number' }),
    eventId: bigint('event_id', { mode: 'number' }),
    accountEmail: text('account_email'),
    cost: money('cost'),
    taxedCost: money('taxed_cost'),
    price: money('price'),
    faceValue: money('face_value'),
    discount: money('discount'),
    quantity: integer('quantity').notNull().default(0),
    format: text('format'),
    type: text('type'),
    viewType: text('view_type'),
    section: text('section'),
    row: text('row'),
    splitType: text('split_type'),
    splitOverride: integer('split_override').array(),
    wheelchairAccessible: boolean('wheelchair_accessible').notNull().default(false),
    eticket: boolean('eticket').notNull().default(false),
    instantDelivery: boolean('instant_delivery').notNull().default(false),
    inHand: boolean('in_hand').notNull().default(false),
    inHandOn: date('in_hand_on'),
    externalNotes: text('external_notes'),
    speculative: boolean('speculative').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('ticket_groups_office_remote').on(t.officeId, t.remoteId),
    uniqueIndex('ticket_groups_service_id').on(t.id),
    index('ticket_groups_mapped_by_remote')
      .on(t.officeId, t.remoteId)
      .where(sql`${t.id} is not null and ${t.eventId} is not null`),
    index('ticket_groups_unmapped_by_remote')
      .on(t.officeId, t.remoteId)
      .where(sql`${t.id} is null and ${t.eventId} is null`),
    index('ticket_groups_mapped_by_id')
      .on(t.officeId, t.id)
      .where(sql`${t.id} is not null and ${t.eventId} is not null`),
  ],
);

export const seats = pgTable(
  'seats',
  {
    ticketGroupPk: bigint('ticket_group_pk', { mode: 'number' })
      .notNull()
      .references(() => ticketGroups.pk, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    barcode: text('barcode'),
    primaryTicketId: bigint('primary_ticket_id', { mode: 'number' }),
    seat: text('seat').notNull(),
    verificationId: text('verification_id'),
  },
  (t) => [primaryKey({ columns: [t.ticketGroupPk, t.position] })],
);
