import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, linkDeliveryFlow } from '../support/api.ts';
import { startEmbeddedService } from '../support/built-service.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { testPrefix } from '../support/redis.ts';
import { signedWith, startReceiver, until } from '../support/webhook-receiver.ts';

/**
 * Webhooks as `npm start` runs them on a fresh machine: the built service on the embedded
 * database (no DATABASE_URL). Claims and acknowledgements there go through the same statements
 * (chain locks, commits without the WAL flush) as on a Postgres server.
 */
describe('webhooks on the embedded database', () => {
  let service: Awaited<ReturnType<typeof startEmbeddedService>>;

  beforeAll(async () => {
    service = await startEmbeddedService({ prefix: testPrefix(), seed: baseFixture(), env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
  }, 60_000);

  it("delivers an order's events in order, each once, signed, and logs each delivery as a success", async () => {
    const rx = await startReceiver();
    try {
      const call = apiClient(service.url);
      const created = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: rx.url });
      expect(created.status).toBe(201);
      const { id, secret } = created.body as { id: number; secret: string };
      await linkDeliveryFlow(call, ORDERS.tbd);
      await until('three events acknowledged', () => rx.acknowledged.length >= 3);
      expect(rx.acknowledged.map((r) => [r.body.order_id, r.body.seq, r.body.type])).toEqual([
        [ORDERS.tbd, 1, 'shipment.created'],
        [ORDERS.tbd, 2, 'shipment.updated'],
        [ORDERS.tbd, 3, 'shipment.completed'],
      ]);
      for (const r of rx.acknowledged) expect(signedWith(secret, r)).toBe(true);
      // Acknowledged in the database too, or the events would be sent again.
      await until('three successes logged', async () => {
        const log = await call(SELLER, 'GET', `/v9/webhook_endpoints/${id}/deliveries`);
        return (log.body as { attempts: unknown[] }).attempts.length === 3;
      });
      const log = await call(SELLER, 'GET', `/v9/webhook_endpoints/${id}/deliveries`);
      const attempts = (log.body as { attempts: Array<{ event_id: string; outcome: string; status_code: number }> }).attempts;
      expect(attempts.map((a) => [a.event_id, a.outcome, a.status_code]).reverse()).toEqual(
        rx.acknowledged.map((r) => [r.eventId, 'success', 200]),
      );
    } finally {
      await rx.close();
    }
  });
});
