import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../auth/caller.ts';
import type { Database } from '../../db/client.ts';
import type { DeadlinePolicy } from '../../domain/deadline-policy.ts';
import { readOrder } from '../../read/read-order.ts';
import { createTestOrder } from '../../sandbox/test-orders.ts';
import { TEST_HELPER_DOCS } from './test-helpers.docs.ts';

export interface TestHelperDeps {
  database: Pick<Database, 'db' | 'rows'>;
  policy: DeadlinePolicy;
  /** Arms a new order's deadline timers; without it the timer sweep does, within its period. */
  armTimers?: ((orderIds: number[]) => Promise<void>) | undefined;
}

/** The sandbox's helpers (docs/API.md §Test mode): registered only while SANDBOX is on. */
export function testHelperRoutes(v9: FastifyInstance, deps: TestHelperDeps): void {
  v9.post('/test_helpers/orders', { schema: TEST_HELPER_DOCS.createOrder }, async (request, reply) => {
    const caller = callerOf(request);
    const id = await createTestOrder(deps.database, caller, request.body, deps.policy);
    await deps.armTimers?.([id]);
    return reply.status(201).send(await readOrder(deps.database.db, id, caller));
  });
}
