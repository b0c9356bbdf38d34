import type { FastifyInstance } from 'fastify';
import { parseId } from '@fulfil/contract';
import { callerOf } from '../../auth/caller.ts';
import { actAsSimulatedParty, type SimulatedPartyDeps } from '../../sandbox/simulated-party.ts';
import { TEST_HELPER_DOCS } from './test-helpers.docs.ts';

/** The simulated counterparty of a test order acts (docs/API.md §Test mode): registered only while SANDBOX is on. */
export function simulatedPartyRoutes(v9: FastifyInstance, deps: SimulatedPartyDeps): void {
  v9.post<{ Params: { id: string } }>('/test_helpers/orders/:id/actions', { schema: TEST_HELPER_DOCS.act }, async (request, reply) => {
    const orderId = parseId(request.params.id, 'id');
    const answer = await actAsSimulatedParty(deps, callerOf(request), orderId, request.body);
    return reply.status(answer.status).send(answer.body);
  });
}
