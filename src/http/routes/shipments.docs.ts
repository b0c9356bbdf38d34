import { buyerPickupBody, completeBody, mailBody, mobileTransferBody, POSTAL_CODE_SHAPES, sellerPickupBody } from '@fulfil/contract';
import { EXAMPLES } from '../openapi/examples.ts';
import { jsonSchemaOf } from '../openapi/json-schema.ts';
import * as bodies from '../openapi/response-bodies.ts';
import { accepted202, COMMAND_ERRORS, commandHeaders, idParam, link, ok, toCommand, V9_ERRORS, v9 } from '../openapi/route-doc.ts';

/** A shipment answer leads to reading, updating (the new id, rule U1) and completing it. */
const shipmentLinks = {
  readShipment: link('getShipment', '$response.body#/id', 'the shipment, by the id this answer gave'),
  updateShipment: link('updateShipment', '$response.body#/id', 'the next update uses this id'),
  completeShipment: link('completeShipment', '$response.body#/id', 'complete it (seller)'),
};

const updateBody = {
  oneOf: [
    { title: 'Seller: mobile transfer or e-ticket', ...jsonSchemaOf(mobileTransferBody) },
    { title: 'Seller: local pickup details', ...jsonSchemaOf(sellerPickupBody) },
    { title: 'Buyer: local pickup details', ...jsonSchemaOf(buyerPickupBody) },
    { title: 'Seller: mailed delivery (FedEx, UPS, USPS, ProvidedAirbill)', ...jsonSchemaOf(mailBody) },
  ],
};

/** The reference of the shipment routes: shipments.ts, shipment-read.ts. */
export const SHIPMENT_DOCS = {
  read: v9({
    tag: 'Shipments',
    operationId: 'getShipment',
    summary: 'Read a shipment (seller or buyer)',
    description:
      'The live shipment with every field its responses showed, and its state. An id an update replaced answers 410 with `replaced_by`.',
    params: idParam('shipment'),
    response: ok(bodies.shipmentRead, 'the shipment'),
    errors: [400, ...V9_ERRORS, 404, 410],
  }),
  update: v9({
    tag: 'Shipments',
    operationId: 'updateShipment',
    summary: 'Update a shipment: mobile transfer, seller or buyer local pickup, mailed delivery',
    description:
      'Rule U1: every successful update replaces the shipment; the answer carries the NEW id, to be used from then on. The old id answers 410 with `replaced_by`. The body is exactly one of the four operations, told apart by its keys. Mailed delivery: a PO box for FedEx or UPS is 422 `address_refused` naming the field. When both parties have given local pickup details the shipment is delivered and the order completed.',
    params: idParam('shipment'),
    headers: commandHeaders,
    body: updateBody,
    badRequest: `mailed delivery: a \`ship_to_address_attributes.postal_code\` not of the shape its \`country_code\` uses where the service knows it (${Object.keys(POSTAL_CODE_SHAPES).join(', ')})`,
    response: { ...ok(bodies.updatedShipment, 'the replacing shipment'), ...accepted202 },
    errors: [...COMMAND_ERRORS, 410],
    requestExamples: {
      mobileLink: { summary: 'seller: the tickets go by mobile link', value: EXAMPLES.mobileLink },
      sellerPickup: { summary: 'seller: local pickup details', value: EXAMPLES.sellerPickup },
      buyerPickup: { summary: 'buyer: local pickup details', value: EXAMPLES.buyerPickup },
    },
    responseExamples: {
      200: { mobileLink: { summary: 'the replacing XMobileLink shipment (a new id)', value: EXAMPLES.mobileLinkShipment } },
    },
    links: { 200: shipmentLinks, ...toCommand },
  }),
  complete: v9({
    tag: 'Shipments',
    operationId: 'completeShipment',
    summary: 'Complete a shipment (seller); POST is accepted too',
    description:
      'The seller has transferred the tickets: a pending XMobileLink (x_mobile_link required), XMobile (optional), XSeats or Eticket (no body, or `{}`) shipment becomes delivered and keeps its id; the order is completed. A mailed shipment (FedEx, UPS, USPS, ProvidedAirbill) is shipped instead: in_transit, its tracking number required (422 otherwise); its delivery scan completes the order. `tm_mobile_link` is the legacy name of x_mobile_link.',
    params: idParam('shipment'),
    headers: commandHeaders,
    body: jsonSchemaOf(completeBody),
    bodyOptional: true,
    response: { ...ok(bodies.completedShipment, 'the delivered shipment'), ...accepted202 },
    errors: [...COMMAND_ERRORS, 410],
    requestExamples: {
      link: { summary: 'XMobileLink: the link the buyer gets', value: EXAMPLES.complete },
      none: { summary: 'XMobile, XSeats or Eticket: nothing to add', value: {} },
    },
    responseExamples: { 200: { link: { summary: 'delivered, same id', value: EXAMPLES.completedShipment } } },
    links: { 200: { readShipment: shipmentLinks.readShipment }, ...toCommand },
  }),
};
