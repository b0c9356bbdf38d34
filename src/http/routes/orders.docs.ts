import { acceptBody } from '@fulfil/contract';
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
