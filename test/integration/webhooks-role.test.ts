import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { apiClient } from '../support/api.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

const FAST = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  RELAY_INTERVAL_MS: '50',
  WEBHOOK_BACKOFF_BASE_MS: '20',
  WEBHOOK_BACKOFF_MAX_MS: '200',
  WEBHOOK_SWEEP_EVERY_MS: '500',
};

/**
 * Delivery in processes of its own: an API, a worker that delivers nothing
 * (WEBHOOK_CONCURRENCY=0), and then a `--role webhooks` process, on one Postgres and one prefix.
 */
describe('the webhooks role', () => {
  let api: TestService;
  let worker: TestService;
  let webhooks: TestService | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    api = await startTestService({ roles: { api: true, worker: false, webhooks: false }, env: FAST });
    await api.seed(baseFixture());
    worker = await startTestService({
      roles: { api: false, worker: true },
      env: { ...FAST, WEBHOOK_CONCURRENCY: '0' },
      db: api.db,
      prefix: api.prefix,
    });
  });
  afterAll(async () => {
    await webhooks?.stop();
    await worker?.stop();
    await api?.stop();
    await receiver?.close();
  });

  it('a worker at WEBHOOK_CONCURRENCY=0 delivers nothing; a webhooks process delivers what is owed, in order', async () => {
    const call = apiClient(api.url);
    expect((await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: receiver.url })).status).toBe(201);
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'XMobile' });
    expect(updated.status).toBe(200);

    // Both events were fanned out (the relay runs in the worker) and sit owed in Postgres.
    const sql = api.db.database.sql!;
    const owed = async () => (await sql`select count(*)::int as n from webhook_deliveries where delivered_at is null`)[0]!.n as number;
    for (const deadline = Date.now() + 10_000; (await owed()) < 2 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
    expect(await owed()).toBe(2);
    // Several sweep periods and backoffs: still nothing reached the receiver.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(receiver.all).toHaveLength(0);

    webhooks = await startTestService({
      roles: { api: false, worker: false, webhooks: true },
      env: FAST,
      db: api.db,
      prefix: api.prefix,
    });
    expect(webhooks.service.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const deadline = Date.now() + 15_000; receiver.acknowledged.length < 2 && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 50));
    expect(receiver.acknowledged.map((r) => [r.body.order_id, r.body.seq, r.body.type])).toEqual([
      [ORDERS.tbd, 1, 'shipment.created'],
      [ORDERS.tbd, 2, 'shipment.updated'],
    ]);
    // The acknowledgement is recorded after the receiver's answer, so a moment after it saw the 2xx.
    for (const deadline = Date.now() + 5_000; (await owed()) > 0 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 20));
    expect(await owed()).toBe(0);
  });

  it('refuses a webhooks process with WEBHOOK_CONCURRENCY=0: it would have nothing to do', async () => {
    await expect(
      startTestService({
        roles: { api: false, worker: false, webhooks: true },
        env: { ...FAST, WEBHOOK_CONCURRENCY: '0' },
        db: api.db,
        prefix: api.prefix,
      }),
    ).rejects.toThrow(ConfigError);
  });
});
