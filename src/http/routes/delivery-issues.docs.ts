import {
  deliveryIssueAnswers,
  DELIVERY_ISSUE_REASONS,
  issueStepBody,
  openIssueBody,
  reissueBody,
  respondIssueBody,
} from '@fulfil/contract';
import { jsonSchemaOf } from '../openapi/json-schema.ts';
import { deliveryEvidenceQuery } from '../../read/delivery-evidence-query.ts';
import { accepted202, COMMAND_ERRORS, commandHeaders, idParam, ok, toCommand, V9_ERRORS, v9 } from '../openapi/route-doc.ts';

const TAG = 'Delivery issues';
const issueOk = (description: string) => ok(deliveryIssueAnswers.deliveryIssue, description);
const STEP_REFUSALS = 'the other party (403); an issue in a state that does not allow it, such as a resolved or closed one (422)';

/** The reference of the delivery issue routes (delivery-issues.ts). */
export const DELIVERY_ISSUE_DOCS = {
  open: v9({
    tag: TAG,
    operationId: 'openDeliveryIssue',
    summary: 'Say the tickets did not arrive (buyer)',
    description: `On a completed order, or one whose tickets are still in transit after its \`deliver_by\`: the issue is \`open\` until the seller answers by \`respond_by\` (opened_at plus the service's response window, 48 hours unless configured); unanswered then, the service escalates it. One undecided issue per order: a second is 409 \`delivery_issue_open\` naming it. \`reason\` is one of ${DELIVERY_ISSUE_REASONS.map((r) => `"${r}"`).join(', ')}; \`seats\` must be the order's. Both parties get \`order.delivery_issue_opened\`. The seller is 403; anyone else 404.`,
    params: idParam('order'),
    headers: commandHeaders,
    body: { ...jsonSchemaOf(openIssueBody), examples: [{ reason: 'wrong_tickets', seats: ['12'], notes: 'the PDF is for another game' }] },
    response: { 201: { description: 'the new issue', ...jsonSchemaOf(deliveryIssueAnswers.deliveryIssue, 'output') }, ...accepted202 },
    errors: COMMAND_ERRORS,
    badRequest: 'a `reason` not in the list; `seats` not on the order (`field`: seats.<i>)',
    links: toCommand,
  }),
  list: v9({
    tag: TAG,
    operationId: 'listDeliveryIssues',
    summary: "List an order's delivery issues (seller or buyer)",
    description: "Every issue of the order, oldest first, each with the seller's answers.",
    params: idParam('order'),
    response: ok(deliveryIssueAnswers.deliveryIssueList, 'the issues'),
    errors: [400, ...V9_ERRORS, 404],
  }),
  read: v9({
    tag: TAG,
    operationId: 'getDeliveryIssue',
    summary: 'Read a delivery issue (seller or buyer)',
    description: "The issue, its state and the seller's answers. Anyone but the two parties is told 404.",
    params: idParam('delivery issue'),
    response: issueOk('the issue'),
    errors: [400, ...V9_ERRORS, 404],
  }),
  respond: v9({
    tag: TAG,
    operationId: 'respondToDeliveryIssue',
    summary: 'Answer a delivery issue without re-delivering (seller)',
    description:
      'The seller says the tickets were delivered and points at the evidence (GET /v9/orders/:id/delivery_evidence); the issue becomes `seller_responded` and is no longer escalated by the service. Both parties get `order.delivery_issue_responded`.',
    params: idParam('delivery issue'),
    headers: commandHeaders,
    body: { ...jsonSchemaOf(respondIssueBody), examples: [{ notes: 'downloaded by you on the 12th; see the evidence' }] },
    response: { ...issueOk('the issue, seller_responded'), ...accepted202 },
    errors: COMMAND_ERRORS,
    badRequest: STEP_REFUSALS,
    links: toCommand,
  }),
  resolve: v9({
    tag: TAG,
    operationId: 'resolveDeliveryIssue',
    summary: 'Call a delivery issue solved (buyer)',
    description: 'The issue becomes `resolved` (final). Both parties get `order.delivery_issue_resolved`.',
    params: idParam('delivery issue'),
    headers: commandHeaders,
    body: jsonSchemaOf(issueStepBody),
    bodyOptional: true,
    response: { ...issueOk('the issue, resolved'), ...accepted202 },
    errors: COMMAND_ERRORS,
    badRequest: STEP_REFUSALS,
    links: toCommand,
  }),
  escalate: v9({
    tag: TAG,
    operationId: 'escalateDeliveryIssue',
    summary: 'Ask an operator to decide (buyer)',
    description:
      'The issue becomes `escalated`; an operator closes it with an outcome (`seller_at_fault`, `buyer_at_fault`, `no_fault`). Both parties get `order.delivery_issue_escalated`.',
    params: idParam('delivery issue'),
    headers: commandHeaders,
    body: jsonSchemaOf(issueStepBody),
    bodyOptional: true,
    response: { ...issueOk('the issue, escalated'), ...accepted202 },
    errors: COMMAND_ERRORS,
    badRequest: STEP_REFUSALS,
    links: toCommand,
  }),
  reissue: v9({
    tag: TAG,
    operationId: 'reissueShipment',
    summary: 'Deliver the tickets again (seller)',
    description:
      "On a completed shipment while a delivery issue of its order waits for the seller (open or seller_responded). New `etickets` (the upload's shape and checks) replace the current set, whose files stay in the history; new `tickets` replace the barcodes of their seats. Every replaced barcode is revoked: GET /v9/shipments/:id lists it under `barcodes.revoked` with `revoked_at` and the reissue that revoked it. The issue becomes `seller_responded`; both parties get `shipment.reissued` and `order.delivery_issue_responded`. On a mailed shipment in transit, in exception or returned, the reissue is a new envelope: `tracking_number` (409 `tracking_number_in_use` if another envelope holds it); the shipment is in_transit again with it, and the old number is revoked: its later scans are stored, marked `revoked`, and complete nothing.",
    params: idParam('shipment'),
    headers: commandHeaders,
    body: {
      ...jsonSchemaOf(reissueBody),
      examples: [{ tickets: [{ seat: '12', barcode: 'NEW-12' }], notes: 'new barcodes from the box office' }],
    },
    response: { ...ok(deliveryIssueAnswers.reissueAnswer, 'the reissue, the barcodes and the issue'), ...accepted202 },
    errors: [...COMMAND_ERRORS, 410],
    badRequest:
      'e-tickets that fail the upload checks (as POST /v9/shipments/:id/etickets); an `x_mobile_link` on a shipment that takes none; ' +
      'for a lost envelope, one of `tracking_number`, `buy_label` or `mobile_transfer_type` with nothing else of the reissue beside it (`etickets`, `tickets`, `x_mobile_link`, the other two; only `notes`, and `transfer_source` beside `mobile_transfer_type`): the field that does not belong is named; `buy_label` needs a carrier account, a live order (test mode buys no label) and a carrier-bought label',
    links: toCommand,
  }),
  evidence: v9({
    tag: TAG,
    operationId: 'getDeliveryEvidence',
    querystring: jsonSchemaOf(deliveryEvidenceQuery),
    summary: 'The evidence of delivery of an order (seller or buyer)',
    description:
      "One timeline, oldest first, of what happened to the tickets: e-tickets uploaded and replaced, each download (by which party, or by a one-time link; never a token or a full address), links made and used, proofs of transfer, barcodes given and revoked, the completion, reissues and the delivery issues' steps. A page at a time (`page[items]`, default 100, at most 500; the next from `page[cursor]` = the answer's `next_cursor`, null on the last page).",
    params: idParam('order'),
    response: ok(deliveryIssueAnswers.deliveryEvidence, 'the timeline'),
    errors: [400, ...V9_ERRORS, 404],
  }),
};
