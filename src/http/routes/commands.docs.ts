import * as bodies from '../openapi/response-bodies.ts';
import { ok, V9_ERRORS, v9 } from '../openapi/route-doc.ts';

/** The reference of commands.ts. */
export const COMMAND_DOCS = {
  status: v9({
    tag: 'Commands',
    operationId: 'getCommand',
    summary: 'Status and result of a command',
    description:
      "Where a 202's Location points. Once finished, `response` holds exactly the status and body the synchronous call would have answered (an error included). Only the brokerage that sent it sees a command.",
    params: {
      type: 'object',
      properties: { id: { type: 'string', description: 'command id (x-command-id header of the call)' } },
      required: ['id'],
    },
    response: ok(bodies.commandStatus, 'the command'),
    errors: [...V9_ERRORS, 404],
  }),
};
