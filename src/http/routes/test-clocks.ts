import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../auth/caller.ts';
import type { Database } from '../../db/client.ts';
import type { ClockDelivery } from '../../sandbox/clock-events.ts';
import { clockJson, clockOf, createClock, deleteClock, listClocks, startAdvance } from '../../sandbox/test-clocks.ts';
import { parseId } from '@fulfil/contract';
import { TEST_CLOCK_DOCS } from './test-clocks.docs.ts';

export interface TestClockDeps {
  database: Database;
  /** Starts a clock's advance on the workers (its job on the timers' queue). */
  armAdvance?: ((clockId: number) => Promise<void>) | undefined;
  /** Hands a clock event's webhook deliveries to the webhook queue; without it the webhook sweep sends them. */
  sendClockEvents?: ((deliveries: ClockDelivery[]) => Promise<void>) | undefined;
}

/** Test clocks (docs/API.md §Test clocks): registered only while SANDBOX is on. */
export function testClockRoutes(v9: FastifyInstance, deps: TestClockDeps): void {
  const { database } = deps;
  v9.post('/test_clocks', { schema: TEST_CLOCK_DOCS.create }, async (request, reply) => {
    const clock = await createClock(database, callerOf(request), request.body);
    return reply.status(201).send(clockJson(clock));
  });
  v9.get('/test_clocks', { schema: TEST_CLOCK_DOCS.list }, async (request) => ({
    test_clocks: (await listClocks(database, callerOf(request))).map(clockJson),
  }));
  v9.get<{ Params: { id: string } }>('/test_clocks/:id', { schema: TEST_CLOCK_DOCS.get }, async (request) =>
    clockJson(await clockOf(database, callerOf(request), parseId(request.params.id, 'id'))),
  );
  v9.post<{ Params: { id: string } }>('/test_clocks/:id/advance', { schema: TEST_CLOCK_DOCS.advance }, async (request) => {
    const id = parseId(request.params.id, 'id');
    const started = await database.transaction((tx) => startAdvance(tx, callerOf(request), id, request.body));
    // Committed: the advance is Postgres's now; the job only starts it (the timer sweep would too).
    await deps.armAdvance?.(id);
    await deps.sendClockEvents?.(started.deliveries);
    return clockJson(started.clock);
  });
  v9.delete<{ Params: { id: string } }>('/test_clocks/:id', { schema: TEST_CLOCK_DOCS.delete }, async (request) => {
    const id = parseId(request.params.id, 'id');
    const deleted = await database.transaction((tx) => deleteClock(tx, callerOf(request), id));
    return { id: deleted.id, object: 'test_clock' as const, deleted: true as const, deleted_orders: deleted.deleted_orders };
  });
}
