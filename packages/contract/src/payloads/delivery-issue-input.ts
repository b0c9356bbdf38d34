import { z } from 'zod';
import { eticketsBody, MAX_FILES_PER_UPLOAD } from './shipment-files-input.ts';
import { trackingNumber } from './mailed-input.ts';
import { mobileTransferBody } from './shipment-update-input.ts';
import { completionTickets, platformSource } from './ticket-delivery-input.ts';
import { ONE_LINE_REFUSED, ONE_LINE_SPACE, positiveId, textOfAtMost } from './validation.ts';

/** Why a buyer says the tickets did not arrive (docs/API.md §Delivery issues). */
export const DELIVERY_ISSUE_REASONS = ['not_received', 'transfer_not_accepted', 'invalid_barcode', 'wrong_tickets', 'other'] as const;
export type DeliveryIssueReason = (typeof DELIVERY_ISSUE_REASONS)[number];

/** Where a delivery issue stands (machines/delivery-issue.ts). */
export const DELIVERY_ISSUE_STATES = ['open', 'seller_responded', 'resolved', 'escalated', 'closed'] as const;
export type DeliveryIssueState = (typeof DELIVERY_ISSUE_STATES)[number];

/** How an operator closes an escalated issue. */
export const DELIVERY_ISSUE_OUTCOMES = ['seller_at_fault', 'buyer_at_fault', 'no_fault'] as const;
export type DeliveryIssueOutcome = (typeof DELIVERY_ISSUE_OUTCOMES)[number];

const notes = textOfAtMost(2000, undefined, 'many');
const seat = textOfAtMost(32, z.string().min(1, 'must not be empty'));

/** Body of POST /v9/orders/:id/delivery_issues (the buyer). */
export const openIssueBody = z.strictObject({
  reason: z
    .enum(DELIVERY_ISSUE_REASONS, { message: `must be one of ${DELIVERY_ISSUE_REASONS.join(', ')}` })
    .describe('what went wrong, from the fixed list'),
  seats: z.array(seat).max(100).optional().describe('the seats concerned, as the order names them; none: the whole order'),
  notes: notes.optional().describe('free text for the seller'),
});
export const openIssueCommand = openIssueBody.extend({ order_id: positiveId });
export type OpenIssueCommand = z.output<typeof openIssueCommand>;

/** Body of POST /v9/delivery_issues/:id/responses (the seller: "delivered, see the evidence"). */
export const respondIssueBody = z.strictObject({ notes: notes.describe('the answer, for the buyer') });
export const respondIssueCommand = respondIssueBody.extend({ issue_id: positiveId });
export type RespondIssueCommand = z.output<typeof respondIssueCommand>;

/** POST /v9/delivery_issues/:id/resolve and …/escalate (the buyer): an optional note. */
export const issueStepBody = z.strictObject({ notes: notes.optional().describe('free text') });
export const resolveIssueCommand = issueStepBody.extend({ issue_id: positiveId });
export type ResolveIssueCommand = z.output<typeof resolveIssueCommand>;
export const escalateIssueCommand = issueStepBody.extend({ issue_id: positiveId });
export type EscalateIssueCommand = z.output<typeof escalateIssueCommand>;

/** An operator closes an escalated issue (the ops page, `fulfil issues close`). */
export const closeIssueCommand = z.strictObject({
  issue_id: positiveId,
  outcome: z.enum(DELIVERY_ISSUE_OUTCOMES, { message: `must be one of ${DELIVERY_ISSUE_OUTCOMES.join(', ')}` }),
  notes: notes.optional(),
  /** Who closed it, as the operator gave it (free text, logged and shown). */
  operator: textOfAtMost(200).optional(),
});
export type CloseIssueCommand = z.output<typeof closeIssueCommand>;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 in lowercase hex');
const LINK = new RegExp(`^${ONE_LINE_SPACE}*[Hh][Tt][Tt][Pp][Ss]?://[^\\s${ONE_LINE_REFUSED}]+${ONE_LINE_SPACE}*$`, 'u');
const links = textOfAtMost(4000, z.string().regex(LINK, 'must be an http(s) URL'));

/**
 * Body of POST /v9/shipments/:id/reissue (the seller, while an issue of the order is undecided),
 * without its files: `etickets` take the upload's shape and checks (src/domain/file-upload.ts).
 */
export const reissueFields = {
  tickets: completionTickets.optional().describe('new barcodes per seat; each replaces the seat’s old one, which is revoked'),
  transfer_source: platformSource.optional(),
  x_mobile_link: links.optional().describe('a new transfer link'),
  notes: notes.optional().describe('free text for the buyer'),
  tracking_number: trackingNumber
    .optional()
    .describe("a mailed shipment's new envelope: its tracking number; the lost envelope's number is revoked"),
  // As PUT /v9/shipments/:id takes it (legacy names included): a lost envelope replaced by an electronic delivery.
  mobile_transfer_type: mobileTransferBody.shape.mobile_transfer_type.optional(),
  buy_label: z
    .literal(true, { message: 'must be true: a new label is bought through the carrier account' })
    .optional()
    .describe("a mailed shipment's new envelope on a label bought through the carrier account; the lost envelope's number is revoked"),
};

/** The reissue's job: files already stored and named by hash, as an upload's. */
export const reissueCommand = z.strictObject({
  shipment_id: positiveId,
  etickets: z
    .array(z.strictObject({ sha256, seat: seat.optional(), barcode: textOfAtMost(200).optional() }))
    .min(1)
    .max(MAX_FILES_PER_UPLOAD)
    .optional(),
  ...reissueFields,
  /** The carrier account's tracker registered for the new envelope's number (best effort). */
  tracker_id: z.string().min(1).max(128).optional(),
  /** The new envelope's label, bought before the command (buy_label): stored, its facts recorded. */
  label: z
    .strictObject({
      sha256,
      provider: z.string().min(1).max(32),
      label_id: z.string().min(1).max(128),
      service: z.string().max(64),
      reason: z.string().max(300),
      estimated_delivery_at: z.string().nullable(),
      rate: z.string().max(32).nullable(),
    })
    .optional(),
});
export type ReissueCommand = z.output<typeof reissueCommand>;

/** Body of POST /v9/shipments/:id/reissue: new files, new barcodes, a new link; at least one. */
export const reissueBody = z
  .strictObject({
    etickets: eticketsBody.shape.etickets.optional().describe('new e-tickets, as an upload takes them; they replace the set'),
    ...reissueFields,
  })
  .refine(
    (b) =>
      b.etickets !== undefined ||
      b.tickets !== undefined ||
      b.x_mobile_link !== undefined ||
      b.transfer_source !== undefined ||
      b.tracking_number !== undefined ||
      b.buy_label !== undefined ||
      b.mobile_transfer_type !== undefined,
    {
      message:
        'give what is delivered again: etickets, tickets, x_mobile_link, transfer_source, tracking_number, buy_label or mobile_transfer_type',
    },
  )
  .meta({
    anyOf: [
      { required: ['etickets'] },
      { required: ['tickets'] },
      { required: ['x_mobile_link'] },
      { required: ['transfer_source'] },
      { required: ['tracking_number'] },
      { required: ['buy_label'] },
      { required: ['mobile_transfer_type'] },
    ],
  });
export type ReissueBody = z.input<typeof reissueBody>;
