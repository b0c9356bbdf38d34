import type { FastifyInstance } from 'fastify';
import { Forbidden } from '@fulfil/contract';
import { QUEUE_ADDRESS_PATH, type ServiceQueuesAddress } from './queue-address.ts';
import { requireOpsToken, type FailureLimiter } from './ops-auth.ts';

/**
 * `GET /ops/queue_address`: where this service's commands go (its Redis, password included, the
 * queue prefix, the shards, its kind of database), the very `queues` of DATA_DIR/service.json, for
 * the CLI of an operator who names the service by its URL (`--base`) rather than its DATA_DIR.
 * The Redis password lets the holder queue any command, so it is told only to OPS_TOKEN (Bearer)
 * and only where the operators may change things (OPS_WRITE), as the ops pages' forms are.
 */
export function queueAddressRoute(
  app: FastifyInstance,
  deps: { address: ServiceQueuesAddress; opsToken: string | undefined; failures: FailureLimiter | undefined; write: boolean },
): void {
  app.get(QUEUE_ADDRESS_PATH, { onRequest: requireOpsToken(deps.opsToken, 'bearer', deps.failures) }, async (_request, reply) => {
    if (!deps.write)
      throw new Forbidden('this service does not let operators change things (OPS_WRITE is off), so it does not tell its queues');
    return reply.header('cache-control', 'no-store').send(deps.address);
  });
}
