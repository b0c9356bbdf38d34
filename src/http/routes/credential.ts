import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../auth/caller.ts';
import { CREDENTIAL_DOCS } from './credential.docs.ts';

/**
 * Signing self-tests for integrators and operators (docs/AUTH.md): a request that reaches these
 * handlers was authenticated, so a 200 proves the client signs correctly.
 */
export function credentialRoutes(v9: FastifyInstance): void {
  v9.get('/credentials/current', { schema: CREDENTIAL_DOCS.current }, async (request) => {
    const caller = callerOf(request);
    return { token: caller.token, kind: caller.kind, livemode: caller.livemode, brokerage_id: caller.brokerageId, user_id: caller.userId };
  });
  // POST and PUT sign the body rather than the query; this lets a client check that path too.
  v9.route({
    method: ['POST', 'PUT'],
    url: '/credentials/current/verify',
    schema: CREDENTIAL_DOCS.verify,
    handler: async () => ({ ok: true }),
  });
}
