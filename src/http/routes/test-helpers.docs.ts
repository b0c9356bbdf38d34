import { z } from 'zod';
import { SIMULATED_BUYER_ACTIONS, SIMULATED_SELLER_ACTIONS, simulatedActionBody } from '../../sandbox/simulated-party.ts';
import { testOrderBody } from '../../sandbox/test-orders.ts';
import { jsonSchemaOf } from '../openapi/json-schema.ts';
import * as bodies from '../openapi/response-bodies.ts';
import { idParam, V9_ERRORS, v9 } from '../openapi/route-doc.ts';

const simulatedStep = z.strictObject({
  command: z.string().describe('the command the simulated party sent (`order.accept`, `shipment.etickets`…), or `eticket.download`'),
  status: z.number().int().describe("the command's status: 200 or 201; 202 when it is still running"),
  body: z.unknown().describe('what the command answered, as a party sending it gets it'),
});

const simulatedAction = z.strictObject({
  action: z.string(),
  simulated_party: z.enum(['buyer', 'seller']).describe('which party the simulated counterparty is on this order'),
  order: bodies.readOrder.describe('the order after the action, as GET /v9/orders/{id} answers you'),
  steps: z.array(simulatedStep).describe('what the simulated party did, in order'),
});

/** The reference of test-helpers.ts. */
export const TEST_HELPER_DOCS = {
  createOrder: v9({
    tag: 'Test mode',
    operationId: 'createTestOrder',
    summary: 'Create a test order to practise on (test credential)',
    description:
      "Creates an order in your brokerage's sandbox: you are the party `role` names, the sandbox's simulated counterparty the other. " +
      'The order then takes the real commands (accept, update, upload, complete…), its events, feed and webhooks, in test mode only. ' +
      'A live credential is refused (403); on a server with test mode off (SANDBOX=false) the route does not exist (404).',
    body: { ...jsonSchemaOf(testOrderBody), examples: [{ role: 'seller', delivery: 'tbd', in_hand_on: '2027-01-15' }] },
    response: {
      201: { description: 'the new test order, as GET /v9/orders/{id} answers it', ...jsonSchemaOf(bodies.readOrder, 'output') },
    },
    errors: [...V9_ERRORS, 403, 422],
    badRequest: '`role` missing or unknown, `in_hand_on` not a calendar date, or both `in_hand_on` and `deliver_by`',
  }),
  act: v9({
    tag: 'Test mode',
    operationId: 'actAsSimulatedParty',
    summary: "Make a test order's simulated counterparty act (test credential)",
    description:
      'The simulated counterparty of your test order does what a real party does, through the same commands, events, feed and webhooks. ' +
      `As the buyer (you sell): ${SIMULATED_BUYER_ACTIONS.join(', ')}. As the seller (you buy): ${SIMULATED_SELLER_ACTIONS.join(', ')}. ` +
      'Fields an action takes (`reason`, `notes`, `seats`, `mobile_transfer_type`…) sit beside `action` and are checked by the real command. ' +
      "An action the order's state does not allow answers the refusal a real party gets (422 and its message), and changes nothing. " +
      'A live credential is refused (403); an order that is not your test order with the simulated counterparty is 404; on a server with test mode off the route does not exist (404).',
    params: idParam('test order'),
    body: {
      ...jsonSchemaOf(simulatedActionBody),
      examples: [{ action: 'ship' }, { action: 'report_issue', reason: 'not_received', notes: 'nothing arrived' }],
    },
    response: {
      200: { description: 'what the simulated party did, and the order after it', ...jsonSchemaOf(simulatedAction, 'output') },
      202: {
        description: 'a command of the action is still running: the steps so far; read the order later',
        ...jsonSchemaOf(simulatedAction, 'output'),
      },
    },
    errors: [...V9_ERRORS, 403, 404, 409, 422],
    badRequest:
      "`action` missing or not one the simulated party's side takes (the message lists them); a field the action's command refuses, named as that command's route names it (`reason`, `notes`, `seats`, `eticket_id`, `mobile_transfer_type`, `tickets`, `x_mobile_link`, `transfer_source`, `rejection_notes`, `ship_to_name`, `phone_number_attributes`…), or one it does not take",
  }),
};
