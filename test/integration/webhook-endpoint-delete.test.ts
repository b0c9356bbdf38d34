import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * A sender's chain statement locks a delivery, then inserts an attempt (which needs the
 * endpoint's key); DELETE holds the endpoint and its cascade waits for that delivery. Here a
 * transaction takes the sender's locks in the sender's order around a DELETE, so the two wait on
 * each other for certain and Postgres aborts the DELETE, which waited first.
 */
describe('deleting a webhook endpoint while a delivery to it is being recorded', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let sql: postgres.Sql;
  beforeAll(async () => {
    t = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    await t.seed(baseFixture());
    call = apiClient(t.url);
    sql = postgres(t.db.url, { max: 2, onnotice: () => {} });
  });
  afterAll(async () => {
    await sql?.end();
    await t?.stop();
  });

  it('deletes it once the sender committed: the deadlock is run again, never answered 500', async () => {
    const created = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: 'http://127.0.0.1:9/hook' });
    expect(created.status).toBe(201);
    const endpointId = (created.body as { id: number }).id;
    const [delivery] = await sql<{ id: string }[]>`
      insert into webhook_deliveries (endpoint_id, seq, event_id, kind, event_at)
      values (${endpointId}, 1, 'evt-delete-race', 'accepted', now()) returning id`;

    let deleting: Promise<{ status: number; body: unknown }> | undefined;
    await sql.begin(async (tx) => {
      await tx`update webhook_deliveries set attempts = attempts + 1 where id = ${delivery!.id}`;
      deleting = call(SELLER, 'DELETE', `/v9/webhook_endpoints/${endpointId}`);
      // The DELETE holds the endpoint and waits for the delivery this transaction holds.
      for (let waited = 0; ; waited += 20) {
        const [w] = await sql<{ n: number }[]>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query ilike 'delete from "webhook_endpoints"%'`;
        if (w!.n > 0) break;
        if (waited > 10_000) throw new Error('the DELETE never waited for the delivery');
        await new Promise((r) => setTimeout(r, 20));
      }
      // Now the attempt: it waits for the endpoint the DELETE holds, until Postgres aborts the DELETE.
      await tx`insert into webhook_attempts (endpoint_id, delivery_id, attempt, outcome) values (${endpointId}, ${delivery!.id}, 1, 'success')`;
    });

    const answer = await deleting!;
    expect(answer.status, JSON.stringify(answer.body)).toBe(204);
    const [left] = await sql<{ endpoints: number; deliveries: number; attempts: number }[]>`
      select (select count(*)::int from webhook_endpoints where id = ${endpointId}) as endpoints,
             (select count(*)::int from webhook_deliveries where endpoint_id = ${endpointId}) as deliveries,
             (select count(*)::int from webhook_attempts where endpoint_id = ${endpointId}) as attempts`;
    expect(left).toEqual({ endpoints: 0, deliveries: 0, attempts: 0 });
  });
});
