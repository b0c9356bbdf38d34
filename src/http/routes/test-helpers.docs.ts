import { testOrderBody } from '../../sandbox/test-orders.ts';
import { jsonSchemaOf } from '../openapi/json-schema.ts';
import * as bodies from '../openapi/response-bodies.ts';
import { V9_ERRORS, v9 } from '../openapi/route-doc.ts';

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
};
