import { acceptBody, cancelBody, orderUpdateBody, REJECTION_REASONS, rejectBody } from '@fulfil/contract';
import { eventsQuery } from '../../read/events-query.ts';
import { EXAMPLES } from '../openapi/examples.ts';
import { jsonSchemaOf } from '../openapi/json-schema.ts';
import * as bodies from '../openapi/response-bodies.ts';
import { accepted202, COMMAND_ERRORS, commandHeaders, idParam, link, ok, toCommand, V9_ERRORS, v9 } from '../openapi/route-doc.ts';

/** The reference of the order routes: orders.ts, order-read.ts, order-events.ts. */
export const ORDER_DOCS = {
  accept: v9({
    tag: 'Orders',
    operationId: 'acceptOrder',
    summary: 'Accept an order (seller)',
    description:
      'The order must be pending; it becomes accepted and gets one shipment by its delivery method: flash → XSeats (pending, with the recipient), local_pickup → LocalPickup, anything else → TBD.',
    params: idParam('order'),
    headers: commandHeaders,
    // What "Try it out" starts from: the demo data's reviewer (fixtures/demo.json, order 700); the
    // generated sample (reviewer 0, seat 0) is refused by any data.
    body: { ...jsonSchemaOf(acceptBody), examples: [{ reviewer_id: 100 }] },
    response: { ...ok(bodies.acceptedOrder, 'the accepted order with its shipment'), ...accepted202 },
    errors: COMMAND_ERRORS,
    badRequest: '`reviewer_id` that is not a user of your brokerage (`field`: reviewer_id)',
    requestExamples: {
      reviewer: { summary: 'accept, reviewed by user 100', value: EXAMPLES.accept },
      seats: { summary: 'accept naming the seats', value: { ...EXAMPLES.accept, seats: [1, 2] } },
    },
    responseExamples: { 200: { tbd: { summary: 'a TBD shipment awaits its delivery method', value: EXAMPLES.acceptedOrder } } },
    links: {
      200: {
        updateShipment: link('updateShipment', '$response.body#/shipments/0/id', 'say how the tickets are delivered'),
        readOrder: link('getOrder', '$request.path.id', 'the order'),
      },
      ...toCommand,
    },
  }),
  reject: v9({
    tag: 'Orders',
    operationId: 'rejectOrder',
    summary: 'Reject an order (seller)',
    description: `The order must be pending; it becomes rejected (final, no shipment) and both parties get \`order.rejected\` with the reason and notes in \`details\`. \`reason\` is one of: ${REJECTION_REASONS.map((r) => `"${r}"`).join(', ')}.`,
    params: idParam('order'),
    headers: commandHeaders,
    body: { ...jsonSchemaOf(rejectBody), examples: [{ reviewer_id: 100, reason: 'Tickets No Longer Available' }] },
    response: { ...ok(bodies.orderAnswer, 'the rejected order'), ...accepted202 },
    errors: COMMAND_ERRORS,
    badRequest: '`reviewer_id` that is not a user of your brokerage (`field`: reviewer_id); a `reason` not in the list',
    links: { 200: { readOrder: link('getOrder', '$request.path.id', 'the order') }, ...toCommand },
  }),
  cancel: v9({
    tag: 'Orders',
    operationId: 'cancelOrder',
    summary: 'Propose or confirm a cancellation (seller or buyer)',
    description:
      "On an accepted order the first party's call proposes: the order becomes `cancel_proposed` and both parties get `order.cancel_proposed`. The other party's call confirms: the order and its live shipment become `canceled` (`order.canceled`). While proposed, shipment updates and completion are refused (422) until the other party answers; the proposer may withdraw with DELETE. Calling again as the proposer is 422.",
    params: idParam('order'),
    headers: commandHeaders,
    body: { ...jsonSchemaOf(cancelBody), examples: [{ reason: 'event postponed' }] },
    bodyOptional: true,
    response: { ...ok(bodies.orderAnswer, 'the order, cancel_proposed or canceled'), ...accepted202 },
    errors: COMMAND_ERRORS,
    links: { 200: { readOrder: link('getOrder', '$request.path.id', 'the order') }, ...toCommand },
  }),
  withdrawCancel: v9({
    tag: 'Orders',
    operationId: 'withdrawOrderCancellation',
    summary: 'Withdraw a proposed cancellation (its proposer)',
    description:
      'Only while the order is `cancel_proposed`, and only by the party that proposed it: the order is accepted again and both parties get `order.cancel_withdrawn`.',
    params: idParam('order'),
    headers: commandHeaders,
    response: { ...ok(bodies.orderAnswer, 'the order, accepted again'), ...accepted202 },
    errors: COMMAND_ERRORS.filter((s) => s !== 413),
    links: { 200: { readOrder: link('getOrder', '$request.path.id', 'the order') }, ...toCommand },
  }),
  confirmReceipt: v9({
    tag: 'Orders',
    operationId: 'confirmOrderReceipt',
    summary: 'Confirm the mailed tickets arrived (buyer)',
    description:
      'On an accepted order whose mailed envelope is shipped (in_transit or exception): the shipment is delivered and the order completed (`shipment.delivered`, details `completed_by: "buyer_confirmed"`). Without a carrier account this answers the seller\'s `delivered` within its window (`confirm_receipt_by`, DELIVERY_CONFIRMATION_WINDOW, 72 h by default); unchallenged by then, the order completes with `completed_by: "unchallenged_claim"`. The seller is 403; another state is 422.',
    params: idParam('order'),
    headers: commandHeaders,
    response: { ...ok(bodies.orderAnswer, 'the order, completed'), ...accepted202 },
    errors: COMMAND_ERRORS.filter((s) => s !== 413),
    links: { 200: { readOrder: link('getOrder', '$request.path.id', 'the order') }, ...toCommand },
  }),
  update: v9({
    tag: 'Orders',
    operationId: 'updateOrder',
    summary: "Move an order's in-hand date (seller)",
    description:
      "While the order is pending, accepted or cancel_proposed. The deadline (`deliver_by`) is worked out again from the new date by the deadline policy (docs/LIFECYCLE.md, Deadlines), its reminder and deadline timers move with it, and both parties get `order.in_hand_updated`. A date before today (in DEADLINE_TIME_ZONE) or after the event's day is 400.",
    params: idParam('order'),
    headers: commandHeaders,
    body: { ...jsonSchemaOf(orderUpdateBody), examples: [{ in_hand_on: '2026-12-10' }] },
    response: { ...ok(bodies.orderAnswer, 'the order with its new deadline'), ...accepted202 },
    errors: COMMAND_ERRORS,
    badRequest: '`in_hand_on` that is not a calendar date, lies before today or after the event (`field`: in_hand_on)',
    links: { 200: { readOrder: link('getOrder', '$request.path.id', 'the order') }, ...toCommand },
  }),
  read: v9({
    tag: 'Orders',
    operationId: 'getOrder',
    summary: 'Read an order (seller or buyer)',
    description: 'The order with its state and its live shipment, as both parties may see it. Read straight from the database.',
    params: idParam('order'),
    response: ok(bodies.readOrder, 'the order'),
    errors: [400, ...V9_ERRORS, 404],
    links: {
      200: {
        updateShipment: link(
          'updateShipment',
          '$response.body#/shipments/0/id',
          'the live shipment (the buyer of a local pickup finds it here)',
        ),
        events: link('listOrderEvents', '$request.path.id', "the order's shipment history"),
      },
    },
  }),
  events: v9({
    tag: 'Orders',
    operationId: 'listOrderEvents',
    summary: "The order's shipment history (seller or buyer)",
    description:
      'Every shipment creation, replacement, pickup detail, delivery and completion of the order, in `seq` order. Page with `after_seq` (the last seq you have) and `limit`; `next_after_seq` is null on the last page.',
    params: idParam('order'),
    querystring: jsonSchemaOf(eventsQuery),
    response: ok(bodies.orderEvents, 'a page of events'),
    errors: [400, ...V9_ERRORS, 404],
  }),
};
