import { z } from 'zod';

const decimal = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const s = typeof v === 'number' ? String(v) : v.trim();
  if (!/^-?\d{1,12}(\.\d{1,2})?$/.test(s)) {
    ctx.addIssue({ code: 'custom', message: 'must be a decimal with at most two places' });
    return z.NEVER;
  }
  return s;
});

// Columns quantity and split_override are Postgres integers; a larger value must be refused here,
// by field, rather than fail the whole batch in the database.
const INT4_MAX = 2_147_483_647;
const isCalendarDate = (s: string) => {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
};

const seat = z.strictObject({
  barcode: z.string().nullable().default(null),
  primary_ticket_id: z.number().int().nullable().default(null),
  seat: z.string().min(1),
  verification_id: z.string().nullable().default(null),
});

/**
 * One ticket group as an office sends it (the detailed record's fields, snake_case). id and
 * event_id are the mapping: both set, or both null. Shared by ingest, the seed and the client.
 */
export const ticketGroupInput = z
  .strictObject({
    remote_id: z.number().int().positive(),
    id: z.number().int().positive().nullable().default(null),
    event_id: z.number().int().positive().nullable().default(null),
    account_email: z.string().nullable().default(null),
    cost: decimal.nullable().default(null),
    taxed_cost: decimal.nullable().default(null),
    price: decimal.nullable().default(null),
    face_value: decimal.nullable().default(null),
    discount: decimal.nullable().default(null),
    quantity: z.number().int().min(0).max(INT4_MAX),
    format: z.string().nullable().default(null),
    type: z.string().nullable().default(null),
    view_type: z.string().nullable().default(null),
    section: z.string().nullable().default(null),
    row: z.string().nullable().default(null),
    seats: z.array(seat).max(1000).default([]),
    split_type: z.string().nullable().default(null),
    split_override: z.array(z.number().int().positive().max(INT4_MAX)).nullable().default(null),
    wheelchair_accessible: z.boolean().default(false),
    eticket: z.boolean().default(false),
    instant_delivery: z.boolean().default(false),
    in_hand: z.boolean().default(false),
    in_hand_on: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD')
      .refine(isCalendarDate, 'must be a real date')
      .nullable()
      .default(null),
    external_notes: z.string().nullable().default(null),
    speculative: z.boolean().default(false),
  })
  .refine((r) => (r.id === null) === (r.event_id === null), {
    message: 'id and event_id must both be set (mapped) or both be null (unmapped)',
    path: ['event_id'],
  });

export type TicketGroupInput = z.output<typeof ticketGroupInput>;
