import { z } from 'zod';
import { positiveId, textOfAtMost, uniqueArray } from './validation.ts';

/** Why an order waits (docs/API.md §Holds). */
export const HOLD_REASONS = [
  'venue_release_pending',
  'fraud_review',
  'payment_pending',
  'event_postponed',
  'awaiting_buyer_info',
  'other',
] as const;
export type HoldReason = (typeof HOLD_REASONS)[number];

/** The reasons a seller may place (and release); operators place any (D-212). */
export const SELLER_HOLD_REASONS = ['venue_release_pending', 'awaiting_buyer_info', 'other'] as const satisfies readonly HoldReason[];

/** The reasons whose time held moves deliver_by on release (awaiting_buyer_info only when answered late: D-214). */
export const EXTENDING_HOLD_REASONS = [
  'fraud_review',
  'payment_pending',
  'event_postponed',
  'venue_release_pending',
] as const satisfies readonly HoldReason[];

/** At most this many active holds on one order. */
export const MAX_ACTIVE_HOLDS = 10;

export const HOLD_STATES = ['active', 'released'] as const;

const notes = textOfAtMost(2000, undefined, 'many');
const seat = textOfAtMost(32, z.string().min(1, 'must not be empty'));
const releaseAt = z.iso.datetime({
  offset: true,
  message: 'must be an ISO 8601 date and time with its offset, e.g. 2026-11-21T09:00:00Z',
});

/** Body of POST /v9/orders/:id/holds (the seller; operators through the ops page and `fulfil holds place`). */
export const placeHoldBody = z.strictObject({
  reason: z.enum(HOLD_REASONS, { message: `must be one of ${HOLD_REASONS.join(', ')}` }).describe('why the order waits'),
  notes: notes.optional().describe('free text, shown to both parties'),
  handle: textOfAtMost(64, z.string().min(1, 'must not be empty'))
    .optional()
    .describe("the placer's key for the hold: a second hold of the order with the same handle answers the first"),
  release_at: releaseAt.optional().describe('when the hold releases itself; must be ahead of the order’s time'),
  seats: uniqueArray(seat, 'must not name a seat twice')
    .max(100)
    .optional()
    .describe('the seats held, as the order names them (1..quantity when it names none); none: the whole order'),
});
export const placeHoldCommand = placeHoldBody.extend({
  order_id: positiveId,
  /** An operator's name: set only by the ops page and the CLI (an upstream actor), never by HTTP. */
  operator: textOfAtMost(200).optional(),
});
export type PlaceHoldCommand = z.output<typeof placeHoldCommand>;

/** Body of POST /v9/holds/:id/release: an optional note. */
export const releaseHoldBody = z.strictObject({ notes: notes.optional().describe('free text, on the release event') });
export const releaseHoldCommand = releaseHoldBody.extend({ hold_id: positiveId, operator: textOfAtMost(200).optional() });
export type ReleaseHoldCommand = z.output<typeof releaseHoldCommand>;

/** Body of POST /v9/holds/:id/answer (the buyer, awaiting_buyer_info holds). */
export const answerHoldBody = z.strictObject({ notes: notes.describe('what the seller asked for (a name for the transfer…)') });
export const answerHoldCommand = answerHoldBody.extend({ hold_id: positiveId });
export type AnswerHoldCommand = z.output<typeof answerHoldCommand>;
