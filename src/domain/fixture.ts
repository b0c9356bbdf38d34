import { z } from 'zod';
import { ticketGroupInput } from '@fulfil/contract';

const id = z.number().int().positive();
const token = z.string().regex(/^[A-Za-z0-9]{32}$/, 'must be 32 ASCII letters or digits');
const secret = z.string().regex(/^\S{40}$/, 'must be 40 non-space characters');
/** `test`: the credential acts for the brokerage's sandbox twin (docs/API.md §Test mode). */
const mode = z.enum(['live', 'test']).default('live');

/** The fixture document (docs/API.md §Fixture format): every id explicit so tests and demos can name them. */
export const fixtureSchema = z.strictObject({
  brokerages: z
    .array(
      z.strictObject({
        id,
        name: z.string().min(1),
        offices: z.array(z.strictObject({ id, name: z.string().min(1) })).default([]),
        users: z.array(z.strictObject({ id, name: z.string().min(1), email: z.string().email() })).default([]),
        credentials: z
          .array(
            z.discriminatedUnion('kind', [
              z.strictObject({ kind: z.literal('api'), token, secret, mode }),
              z.strictObject({ kind: z.literal('user'), user_id: id, token, secret, mode }),
            ]),
          )
          .default([]),
      }),
    )
    .default([]),
  events: z
    .array(z.strictObject({ id, name: z.string().min(1), occurs_at: z.string().datetime({ offset: true }).nullable().default(null) }))
    .default([]),
  orders: z
    .array(
      z.strictObject({
        id,
        oid: z.string().regex(/^\d+-\d+$/, 'must be two numbers joined by a hyphen'),
        seller_office_id: id,
        buyer_brokerage_id: id,
        delivery: z.enum(['tbd', 'flash', 'local_pickup']),
        quantity: z.number().int().positive(),
        recipient: z.strictObject({ name: z.string().min(1), email: z.string().email() }),
        /** The day the tickets are due in the buyer's hands; the deadline follows by the policy (deadline-policy.ts). */
        in_hand_on: z
          .string()
          .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a calendar date, YYYY-MM-DD')
          .optional(),
        /** When the event starts: an in-hand date on its day makes the deadline the evening before. */
        event_starts_at: z.string().datetime({ offset: true }).optional(),
        /** An explicit deadline, overriding the policy (until the seller moves in_hand_on). */
        deliver_by: z.string().datetime({ offset: true }).optional(),
      }),
    )
    .default([]),
  ticket_groups: z.array(z.intersection(z.object({ office_id: id }), ticketGroupInput)).default([]),
});

export type Fixture = z.output<typeof fixtureSchema>;
