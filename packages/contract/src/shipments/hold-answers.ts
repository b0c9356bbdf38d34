import { z } from 'zod';
import { HOLD_REASONS, HOLD_STATES } from '../payloads/hold-input.ts';
import { id, instant } from './shipment-answers.ts';

// The answers about holds (docs/API.md §Holds).

const party = z
  .strictObject({
    party: z.enum(['seller', 'buyer', 'operator', 'system']),
    brokerage_id: id.nullable(),
    user_id: id.nullable(),
    operator: z.string().nullable().describe("an operator's name, as given"),
  })
  .describe('who acted: a party (its brokerage and user), an operator, or the service (release_at)');

export const hold = z.strictObject({
  id,
  order_id: id,
  reason: z.enum(HOLD_REASONS),
  notes: z.string().nullable(),
  handle: z.string().nullable(),
  seats: z.array(z.string()).describe('the seats held; empty: the whole order'),
  state: z.enum(HOLD_STATES),
  placed_by: party,
  placed_at: instant,
  release_at: instant.nullable().describe('when it releases itself, if it does'),
  released_at: instant.nullable(),
  released_by: party.nullable(),
  release_why: z.enum(['released', 'release_at']).nullable().describe('released: by a party or an operator; release_at: by itself'),
  answer_notes: z.string().nullable().describe("awaiting_buyer_info: the buyer's answer"),
  answered_at: instant.nullable(),
  deadline_extended_ms: z.number().int().nonnegative().describe("what its release added to the order's deliver_by"),
  livemode: z.boolean(),
});

export const holdList = z.strictObject({ holds: z.array(hold).describe('oldest first, released ones included') });
