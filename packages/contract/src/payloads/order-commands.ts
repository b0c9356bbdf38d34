import { z } from 'zod';
import { acceptedEnum } from './accepted-enum.ts';
import { positiveId, textOfAtMost } from './validation.ts';

/**
 * Why a seller refuses an order: Ticket Evolution's list, spelled exactly as it is (docs/API.md
 * §Orders, reject).
 */
export const REJECTION_REASONS = [
  'Tickets No Longer Available',
  'Tickets Priced Incorrectly',
  'Duplicate Order',
  'Fraudulent Order',
  'Test Order',
  'Other',
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

/** Body of POST /v9/orders/:id/reject (the seller, while the order is pending). */
export const rejectBody = z.strictObject({
  reviewer_id: positiveId.describe('a user of your brokerage (400 otherwise): who reviewed the order'),
  reason: acceptedEnum('reason', REJECTION_REASONS).describe('why, from the fixed list'),
  rejection_notes: textOfAtMost(2000, undefined, 'many').optional().describe('free text for the buyer'),
});
export const rejectCommand = rejectBody.extend({ order_id: positiveId });
export type RejectCommand = z.output<typeof rejectCommand>;

/** Body of POST /v9/orders/:id/cancel (either party, while the order is accepted or its cancellation proposed). */
export const cancelBody = z.strictObject({
  reason: textOfAtMost(200).optional().describe('why, in a few words'),
  notes: textOfAtMost(2000, undefined, 'many').optional().describe('free text for the other party'),
});
export const cancelCommand = cancelBody.extend({ order_id: positiveId });
export type CancelCommand = z.output<typeof cancelCommand>;

/** DELETE /v9/orders/:id/cancel: the proposer withdraws (no body). */
export const withdrawCancelCommand = z.strictObject({ order_id: positiveId });
export type WithdrawCancelCommand = z.output<typeof withdrawCancelCommand>;

/** POST /v9/orders/:id/confirm_receipt: the buyer says the mailed tickets arrived (no body). */
export const confirmReceiptCommand = z.strictObject({ order_id: positiveId });
export type ConfirmReceiptCommand = z.output<typeof confirmReceiptCommand>;

const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a calendar date, YYYY-MM-DD')
  .refine((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
  }, 'must be a calendar date, YYYY-MM-DD')
  .meta({ format: 'date' });

/** Body of PUT /v9/orders/:id (the seller, while the order is open): moves the in-hand date and with it the deadline. */
export const orderUpdateBody = z.strictObject({
  in_hand_on: calendarDate.describe("the day the tickets will be in the buyer's hands; not after the event's day"),
});
export const orderUpdateCommand = orderUpdateBody.extend({ order_id: positiveId });
export type OrderUpdateCommand = z.output<typeof orderUpdateCommand>;
