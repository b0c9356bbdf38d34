import { airbillBody, mailedAnswers, MAX_FILE_BYTES, trackingEventBody, trackingNumberBody } from '@fulfil/contract';
import { errorResponses, routeError } from '../openapi/error-responses.ts';
import { jsonSchemaOf } from '../openapi/json-schema.ts';
import { EASYPOST_EVENT_EXAMPLE, easypostEvent } from '../../carriers/easypost-event-doc.ts';
import { trackingEventsQuery } from '../../read/tracking-events-query.ts';
import { accepted202, COMMAND_ERRORS, commandHeaders, idParam, ok, toCommand, V9_ERRORS, v9 } from '../openapi/route-doc.ts';

const shipmentId = idParam('shipment');
const TAG = 'Mailed tickets';

/** The reference of the mailed-ticket routes: mailed-shipments.ts and carrier-webhooks.ts. */
export const MAILED_DOCS = {
  giveAirbill: v9({
    tag: TAG,
    operationId: 'createAirbill',
    summary: 'Buy or upload the label of a mailed shipment (seller; the buyer for ProvidedAirbill)',
    description: `\`{}\` buys a label through the carrier account (EASYPOST_API_KEY): the cheapest service expected before the order's deliver_by, else the fastest, the reason in \`purchase.reason\`; a second purchase answers the first label, and requests racing to buy one buy one label (the others answer it). A bought label its command refuses is refunded through the carrier account. Otherwise, and always for ProvidedAirbill, \`airbill\` is the label as a base64 PDF (checked as e-tickets are; ${MAX_FILE_BYTES / 1024 / 1024} MiB at most) with its \`tracking_number\`, which must be one of the shipment's carrier (400 names the carrier it looks like). A number another shipment's envelope holds (any brokerage's; for good once shipped) is 409 \`tracking_number_in_use\`, which names neither that shipment nor its order. An EasyPost error or timeout is 502 with what EasyPost said; nothing changes. Event: \`shipment.airbill_created\`.`,
    params: shipmentId,
    headers: commandHeaders,
    body: jsonSchemaOf(airbillBody),
    response: {
      ...ok(mailedAnswers.airbillAnswer, 'the shipment with its label'),
      ...accepted202,
      409: routeError(
        'label_bought',
        'an upload (`airbill`) onto a shipment whose label was bought through the carrier account: the bought label stands; nothing changes (or `idempotency_conflict`: an Idempotency-Key reused with a different request)',
        'shipment 42 has a label bought through the carrier account; it stands, and an uploaded one cannot replace it (send {} to get the bought label again)',
      ),
    },
    // 409 is this route's own (above), idempotency_conflict said beside label_bought.
    errors: [...COMMAND_ERRORS.filter((status) => status !== 409), 408, 410, 502],
    badRequest:
      'an `airbill` that is not a PDF, a `tracking_number` not of the shipment’s carrier (`detected_carrier` names the one it looks like) or blank once its spaces are removed, `{}` with no carrier account, on ProvidedAirbill or on a test order (test mode buys no label), a test code as the `tracking_number` of a live shipment',
    links: toCommand,
  }),
  getAirbill: v9({
    tag: TAG,
    operationId: 'getAirbill',
    summary: 'Download the label of a mailed shipment (seller or buyer)',
    description:
      "The label PDF, byte for byte. Anyone but the order's two parties is told 404, as is a shipment without a label. A shipment since replaced (a reissue, a type change) is 410 with `replaced_by`, the live shipment.",
    params: shipmentId,
    response: { 200: { description: 'the PDF', content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } } },
    errors: [400, ...V9_ERRORS, 404, 410],
  }),
  setTracking: v9({
    tag: TAG,
    operationId: 'setTrackingNumber',
    summary: 'Set the tracking number of a mailed shipment (seller)',
    description:
      "For a label bought elsewhere. The number must be one of the shipment's carrier (checked by its format and check digit; 400 names the carrier it looks like, if any). Changeable while the shipment is pending (the old number is then free again); a bought label's number is the label's. A number is one envelope's: one another shipment holds, in any spelling (spaces, case, USPS's 420+ZIP routing prefix), is 409 `tracking_number_in_use`, naming neither that shipment nor its order; once shipped or delivered a number stays its shipment's for good. With a carrier account the number is registered as a tracker: the carrier's scans then decide, the seller's events are claims. Test mode: a test order's shipment of any carrier takes EasyPost's test codes (EZ1000000001 … EZ9000000009), carried by the carrier simulator; a live one refuses them (400); a test order's number is never sent to the carrier nor held against other shipments. Event: `shipment.airbill_created` (without a file).",
    params: shipmentId,
    headers: commandHeaders,
    body: jsonSchemaOf(trackingNumberBody),
    badRequest:
      'a `tracking_number` not of the shipment’s carrier (`detected_carrier` names the one it looks like) or blank once its spaces are removed, or one of EasyPost’s test codes on a live shipment',
    response: { ...ok(mailedAnswers.mailedShipmentAnswer, 'the shipment'), ...accepted202 },
    errors: [...COMMAND_ERRORS, 410],
    links: toCommand,
  }),
  addTrackingEvent: v9({
    tag: TAG,
    operationId: 'addTrackingEvent',
    summary: 'Report a tracking event of a mailed shipment (seller)',
    description:
      "For a carrier without an account here. `in_transit`/`out_for_delivery` move a pending or exception shipment to in_transit, `exception` and `returned` to theirs, `delivered` delivers a shipped one and completes the order; `delivered` on a pending (never shipped) shipment is 422. On a shipment the carrier tracks (its label bought through the carrier account, or a tracker registered for its number), every event of the seller, `returned` included, is recorded as the seller's claim (`seller_claim: true`) and moves nothing: the carrier's scans do. Without any carrier account, a `delivered` on a shipped envelope is a claim too: it opens the buyer's confirmation window (`confirm_receipt_by`; DELIVERY_CONFIRMATION_WINDOW, 72 h), at whose end, unchallenged, the order completes. `occurred_at` must lie in the years 2000-2100, at most 10 minutes ahead of now, and not before the shipment existed (400 naming it). The same event (status and time) again is recorded once.",
    params: shipmentId,
    headers: commandHeaders,
    body: jsonSchemaOf(trackingEventBody),
    response: { ...ok(mailedAnswers.trackingEventAnswer, 'the shipment and the event'), ...accepted202 },
    errors: [...COMMAND_ERRORS, 410],
    badRequest: '`occurred_at` outside the years 2000–2100, more than 10 minutes ahead of now, or before the shipment existed',
    links: toCommand,
  }),
  listTrackingEvents: v9({
    tag: TAG,
    operationId: 'listTrackingEvents',
    querystring: jsonSchemaOf(trackingEventsQuery),
    summary: 'List the tracking events of a mailed shipment (seller or buyer)',
    description:
      "A shipment since replaced is 410 with `replaced_by`, the live shipment (the order's events keep the old scans). A page at a time (`page[items]`, default 100, at most 500; the next from `page[cursor]` = the answer's `next_cursor`, null on the last page), by the carrier's time (`occurred_at`) with the time each was received (`recorded_at`) beside it, each with its source: `carrier` (the carrier's scan) or `seller`; `seller_claim` marks the seller's word (every event of the seller on a carrier-tracked shipment, and every `delivered` the seller reports), `held` a carrier scan waiting for a proposed cancellation's answer, `time_flag` a carrier time that could not be used (the scan is then dated when it came, `reported_time` holding the carrier's).",
    params: shipmentId,
    response: ok(mailedAnswers.trackingEventList, 'the tracking events'),
    errors: [400, ...V9_ERRORS, 404, 410],
  }),
};

/** POST /carriers/easypost/events: EasyPost signs it; no fulfil credential. */
export const EASYPOST_WEBHOOK_DOC = {
  tags: [TAG],
  operationId: 'receiveEasyPostEvent',
  summary: "EasyPost's tracker webhooks (for EasyPost only)",
  description:
    'Register this URL in the EasyPost dashboard with the secret EASYPOST_WEBHOOK_SECRET. Each call is verified by its X-Hmac-Signature (`hmac-sha256-hex=` and the HMAC-SHA256 of the raw body under the secret); a missing or bad signature is 401 and changes nothing. A `tracker.updated` event is matched to the envelope by its tracker id first, then by its tracking code as its carrier reads it, and each scan stored once, whatever the state of the order: during a proposed cancellation the scans are held and take effect if it is withdrawn; a scan dated outside 2000-2100, in the future or before the shipment existed is stored at the time it came, flagged. A retried event changes nothing; a scan never moves a delivered shipment back. An event that matches no live envelope is answered 200 and kept, with its scans, for the operators, without effect.',
  security: [],
  headers: {
    type: 'object',
    properties: {
      'x-hmac-signature': {
        type: 'string',
        pattern: '^hmac-sha256-hex=[0-9a-f]{64}$',
        description:
          'hmac-sha256-hex= and the hex HMAC-SHA256 of the raw body (NFKD) under EASYPOST_WEBHOOK_SECRET (NFKD); docs/OPERATIONS.md, "Simulating the carrier", shows how to make one',
      },
    },
  },
  // As sent ('output': no request pattern): a carrier's words are stored whatever they hold.
  body: jsonSchemaOf(easypostEvent, 'output'),
  'x-request-examples': {
    inTransit: { summary: 'a tracker.updated event: one in_transit scan of UPS 1Z5R89390357567127', value: EASYPOST_EVENT_EXAMPLE },
  },
  response: {
    200: { description: 'taken (or ignored, with the reason)', ...jsonSchemaOf(mailedAnswers.carrierWebhookAnswer, 'output') },
    ...errorResponses([400, 401, 404, 413, 503]),
  },
};
