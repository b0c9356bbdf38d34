import {
  answerHoldBody,
  holdAnswers,
  HOLD_REASONS,
  MAX_ACTIVE_HOLDS,
  placeHoldBody,
  releaseHoldBody,
  SELLER_HOLD_REASONS,
} from '@fulfil/contract';
import { jsonSchemaOf } from '../openapi/json-schema.ts';
import { accepted202, COMMAND_ERRORS, commandHeaders, idParam, ok, toCommand, V9_ERRORS, v9 } from '../openapi/route-doc.ts';

const TAG = 'Holds';
const holdOk = (description: string) => ok(holdAnswers.hold, description);
const list = (rs: readonly string[]) => rs.map((r) => `\`${r}\``).join(', ');

/** The reference of the hold routes (holds.ts). */
export const HOLD_DOCS = {
  place: v9({
    tag: TAG,
    operationId: 'placeHold',
    summary: 'Hold an order (seller)',
    description: `The order waits for a reason: while any hold is active, completing its shipment and uploading its files (e-tickets, an airbill, a proof of transfer) are 422 naming the hold, and its deadline timers wait. \`reason\` is one of ${list(HOLD_REASONS)}; the seller may place ${list(SELLER_HOLD_REASONS)} (another reason is 403: operators place those through the ops page or \`fulfil holds place\`). \`release_at\` (ahead of the order's time) releases it by itself. \`seats\` must be the order's (1..quantity when it names none); the hold stops the whole order whatever seats it names. A second hold with the same \`handle\` answers the first (200) and changes nothing. At most ${MAX_ACTIVE_HOLDS} active holds an order (422 after). Both parties get \`order.hold_placed\`. The buyer is 403; anyone else 404.`,
    params: idParam('order'),
    headers: commandHeaders,
    body: {
      ...jsonSchemaOf(placeHoldBody),
      examples: [
        { reason: 'venue_release_pending', notes: 'barcodes out on the 12th', handle: 'venue-1', release_at: '2026-11-12T15:00:00Z' },
      ],
    },
    response: {
      201: { description: 'the new hold', ...jsonSchemaOf(holdAnswers.hold, 'output') },
      ...holdOk('the hold its handle named first, as it reads now'),
      ...accepted202,
    },
    errors: COMMAND_ERRORS,
    badRequest:
      'a `reason` not in the list; `release_at` not an ISO 8601 time, or not ahead of the order’s time; `seats` not on the order (`field`: seats.<i>) or named twice; a `handle` or `notes` too long; ' +
      'the seller placing a reason only an operator may (403); an order not open, or an eleventh active hold (422)',
    links: toCommand,
  }),
  list: v9({
    tag: TAG,
    operationId: 'listHolds',
    summary: "List an order's holds (seller or buyer)",
    description:
      'Every hold of the order, oldest first, active and released, with its reason, who placed and released it, and what its release added to the deadline.',
    params: idParam('order'),
    response: ok(holdAnswers.holdList, 'the holds'),
    errors: [400, ...V9_ERRORS, 404],
  }),
  release: v9({
    tag: TAG,
    operationId: 'releaseHold',
    summary: 'Release a hold (seller)',
    description: `Whoever may place a hold of its reason releases it: the seller ${list(SELLER_HOLD_REASONS)}, operators any (\`fulfil holds release\`). The time held moves \`deliver_by\` later for \`fraud_review\`, \`payment_pending\`, \`event_postponed\` and \`venue_release_pending\` (never past the event's start), for \`awaiting_buyer_info\` only when the buyer answered more than a day after it was placed, never for \`other\`; a moved deadline is \`order.deadline_extended\`. Both parties get \`order.hold_released\`. A released hold is 422.`,
    params: idParam('hold'),
    headers: commandHeaders,
    body: jsonSchemaOf(releaseHoldBody),
    bodyOptional: true,
    response: { ...holdOk('the hold, released'), ...accepted202 },
    errors: COMMAND_ERRORS,
    badRequest: '`notes` too long; the buyer, or the seller on a reason only an operator may release (403); a released hold (422)',
    links: toCommand,
  }),
  answer: v9({
    tag: TAG,
    operationId: 'answerHold',
    summary: 'Answer an awaiting_buyer_info hold (buyer)',
    description:
      'The buyer gives what the seller asked for (a name for the transfer…). The hold stays active until the seller releases it; both parties get `order.hold_answered`. Another reason, a released or an answered hold is 422; the seller is 403.',
    params: idParam('hold'),
    headers: commandHeaders,
    body: { ...jsonSchemaOf(answerHoldBody), examples: [{ notes: 'transfer to Ada Lovelace, ada@example.com' }] },
    response: { ...holdOk('the hold, answered'), ...accepted202 },
    errors: COMMAND_ERRORS,
    badRequest: '`notes` missing or too long',
    links: toCommand,
  }),
};
