import { z } from 'zod';
import { DELIVERY_ISSUE_OUTCOMES, DELIVERY_ISSUE_REASONS, DELIVERY_ISSUE_STATES } from '../payloads/delivery-issue-input.ts';
import { eticket } from './file-answers.ts';
import { id, instant, livemode } from './shipment-answers.ts';

// The answers about delivery issues, reissues and the evidence of delivery (docs/API.md §Delivery issues).

export const issueResponse = z.strictObject({
  id: id.describe('the answer (reissue) id'),
  kind: z.enum(['reissue', 'response']).describe('reissue: delivered again; response: pointed at the evidence'),
  notes: z.string().nullable(),
  at: instant,
  etickets_set_id: id.nullable().optional().describe('the e-ticket set a reissue attached (GET /v9/shipments/:id/etickets lists it)'),
  tickets: z.array(z.record(z.string(), z.string())).nullable().optional(),
  transfer_source: z.string().nullable().optional(),
  x_mobile_link: z.string().nullable().optional(),
});

export const deliveryIssue = z.strictObject({
  id,
  order_id: id,
  shipment_id: id.nullable(),
  state: z.enum(DELIVERY_ISSUE_STATES),
  reason: z.enum(DELIVERY_ISSUE_REASONS),
  seats: z.array(z.string()),
  notes: z.string().nullable(),
  opened_at: instant,
  respond_by: instant.describe('opened_at + the response window: an issue still open then is escalated by the service'),
  responded_at: instant.nullable(),
  escalated_at: instant.nullable(),
  escalated_by: z.enum(['buyer', 'system']).nullable(),
  resolved_at: instant.nullable(),
  closed_at: instant.nullable(),
  outcome: z.enum(DELIVERY_ISSUE_OUTCOMES).nullable().describe("an operator's decision on an escalated issue (closed only)"),
  close_notes: z.string().nullable().describe("the operator's words on closing it, shown to both parties"),
  resolution_notes: z.string().nullable().describe("the buyer's words on resolving it"),
  escalation_notes: z.string().nullable().describe("the buyer's words on escalating it"),
  responses: z.array(issueResponse).describe("the seller's answers, oldest first"),
  livemode: z.boolean().describe("false for an issue of a test order (test mode): its order's"),
});

export const deliveryIssueList = z.strictObject({ delivery_issues: z.array(deliveryIssue).describe('oldest first') });

export const barcode = z
  .strictObject({
    seat: z.string().nullable(),
    barcode: z.string().optional(),
    primary_ticket_id: z.string().optional(),
    verification_id: z.string().optional(),
    source: z.enum(['completion', 'eticket', 'reissue']),
    given_at: instant,
    given_by_reissue_id: id.nullable().describe('the reissue that gave it; null when given at completion or with the first e-tickets'),
    revoked_at: instant.optional(),
    revoked_by_reissue_id: id.nullable().optional(),
  })
  .describe('one of barcode, primary_ticket_id, verification_id');

export const shipmentBarcodes = z.strictObject({
  live: z.array(barcode).describe('the barcodes that hold'),
  revoked: z.array(barcode).describe('barcodes a reissue replaced: never valid again'),
});

/** The answer of POST /v9/shipments/:id/reissue. */
export const reissueAnswer = z.strictObject({
  shipment_id: id,
  reissue_id: id,
  etickets: z.array(eticket).optional().describe('the new e-tickets, when the reissue carried files'),
  barcodes: shipmentBarcodes,
  tracking_number: z.string().optional().describe("a mailed shipment's new envelope: its tracking number"),
  revoked_tracking_number: z
    .string()
    .nullable()
    .optional()
    .describe("the lost envelope's number, revoked: its later scans are stored, shown as revoked, and complete nothing"),
  new_shipment: z
    .strictObject({ id, type: z.string(), state: z.string() })
    .optional()
    .describe('the electronic shipment that replaces a lost envelope (mobile_transfer_type), pending until the seller delivers it'),
  purchase: z
    .strictObject({ provider: z.string(), service: z.string(), reason: z.string(), rate: z.string().nullable() })
    .optional()
    .describe('the new label bought through the carrier account (buy_label); GET /v9/shipments/:id/airbill answers it'),
  delivery_issue: deliveryIssue,
  livemode,
});

export const evidenceEntry = z
  .looseObject({
    at: instant,
    what: z
      .string()
      .describe('what happened, a short code: etickets_uploaded, eticket_downloaded, link_created, link_used, tracking_scan, …'),
    by: z.string().nullable().describe('seller, buyer, system, or one_time_link'),
  })
  .describe('one step of the evidence; the fields beside at, what and by depend on what');

/** GET /v9/orders/:id/delivery_evidence. */
export const deliveryEvidence = z.strictObject({
  order_id: id,
  timeline: z.array(evidenceEntry).describe('this page, oldest first'),
  next_cursor: z.string().nullable().describe('page[cursor] of the next page; null on the last page'),
  livemode: z.boolean().describe("false for a test order's evidence (test mode)"),
});
