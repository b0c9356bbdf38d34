import { z } from 'zod';
import { advanceClockBody, createClockBody, MAX_ADVANCE_DAYS } from '../../sandbox/test-clocks.ts';
import { routeError } from '../openapi/error-responses.ts';
import { jsonSchemaOf } from '../openapi/json-schema.ts';
import { idParam, ok, V9_ERRORS, v9 } from '../openapi/route-doc.ts';
import { instant } from '../openapi/webhook-payloads.ts';

export const testClock = z.strictObject({
  id: z.number().int().positive(),
  object: z.literal('test_clock'),
  name: z.string().nullable(),
  frozen_time: instant.describe('the time the orders on this clock live at'),
  status: z.enum(['ready', 'advancing']).describe('advancing: the timers due up to advancing_to are firing, in time order'),
  advancing_to: instant.nullable().describe('while advancing: the time it advances to'),
  created_at: instant,
  livemode: z.literal(false),
});

const TAG = 'Test mode';
const LIVE = 'A live credential is refused (403); on a server with test mode off (SANDBOX=false) the route does not exist (404).';
const advancing = routeError(
  'test_clock_advancing',
  'the clock is advancing; wait until its status is `ready`',
  'test clock 7000000000000005 is advancing to 2027-01-03T00:00:00.000Z; wait until its status is ready (GET /v9/test_clocks/7000000000000005)',
);

/** The reference of test-clocks.ts. */
export const TEST_CLOCK_DOCS = {
  create: v9({
    tag: TAG,
    operationId: 'createTestClock',
    summary: 'Create a test clock (test credential)',
    description:
      'A test clock is a time your sandbox owns and moves forward. Orders created with `test_clock` (POST /v9/test_helpers/orders) live at ' +
      'its time: their deadlines, delivery-issue windows, simulated carrier scans and the times their objects carry read the clock. ' +
      LIVE,
    body: { ...jsonSchemaOf(createClockBody), examples: [{ frozen_time: '2027-01-01T00:00:00Z', name: 'January rehearsal' }] },
    response: { 201: { description: 'the new clock, ready', ...jsonSchemaOf(testClock, 'output') } },
    errors: [...V9_ERRORS, 403],
    badRequest: '`frozen_time` missing or not a time with its offset, or `name` empty or over 200 characters',
  }),
  list: v9({
    tag: TAG,
    operationId: 'listTestClocks',
    summary: "Your sandbox's test clocks",
    description: `Every test clock of your sandbox, oldest first. ${LIVE}`,
    response: ok(z.strictObject({ test_clocks: z.array(testClock) }), 'the clocks'),
    errors: [...V9_ERRORS, 403],
  }),
  get: v9({
    tag: TAG,
    operationId: 'getTestClock',
    summary: 'A test clock',
    description: `The clock as it is now: poll it after an advance until \`status\` is \`ready\`. ${LIVE}`,
    params: idParam('test clock'),
    response: ok(testClock, 'the clock'),
    errors: [...V9_ERRORS, 403, 404],
  }),
  advance: v9({
    tag: TAG,
    operationId: 'advanceTestClock',
    summary: 'Advance a test clock',
    description:
      'Moves the clock forward to `frozen_time`. The answer comes at once with `status: "advancing"`; every timer of its orders that falls due ' +
      'in between then fires in time order, exactly once, stamped with the clock time it fell due at, through the real handlers, events, feed ' +
      'and webhooks (each event carries `test_clock`), and the clock turns `ready` at `frozen_time`. The webhook events ' +
      '`test_clock.advancing` and `test_clock.ready` mark both ends. An advance survives a worker restart and a lost Redis. ' +
      `Forward only, at most ${MAX_ADVANCE_DAYS} days a step. ${LIVE}`,
    params: idParam('test clock'),
    body: { ...jsonSchemaOf(advanceClockBody), examples: [{ frozen_time: '2027-01-03T00:00:00Z' }] },
    response: { ...ok(testClock, 'the clock, advancing'), 409: advancing },
    errors: [...V9_ERRORS, 403, 404],
    badRequest: `\`frozen_time\` missing, not a time with its offset, not after the clock's time, or more than ${MAX_ADVANCE_DAYS} days after it`,
  }),
  delete: v9({
    tag: TAG,
    operationId: 'deleteTestClock',
    summary: 'Delete a test clock and its orders',
    description: `Deletes the clock and every test object on it: its orders, their shipments, files, issues, scans, events and webhook deliveries. ${LIVE}`,
    params: idParam('test clock'),
    response: {
      ...ok(
        z.strictObject({
          id: z.number().int(),
          object: z.literal('test_clock'),
          deleted: z.literal(true),
          deleted_orders: z.number().int(),
        }),
        'deleted',
      ),
      409: advancing,
    },
    errors: [...V9_ERRORS, 403, 404],
  }),
};
