import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, linkDeliveryFlow } from '../support/api.ts';
import { baseFixture } from '../support/fixtures.ts';
import { startPartyEndpoints } from '../support/party-webhooks.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { until, type Received } from '../support/webhook-receiver.ts';

const ORDERS = Array.from({ length: 40 }, (_, i) => 950 + i);

/**
 * No event waits for the sweep: with the sweep an hour apart, every event of orders whose events
 * follow each other while earlier ones are still in flight (a receiver slower than the next
 * command) is delivered within seconds, in seq order, to both parties. A lost wake-up between the
 * relay, the job queued for a newer event and the job acknowledging the older one would leave an
 * event for the hour (webhook-claim-race.test.ts makes one such interleaving by hand).
 */
describe('webhook wake-ups', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', RELAY_INTERVAL_MS: '50', WEBHOOK_SWEEP_EVERY_MS: '3600000' } });
    const fixture = baseFixture(ORDERS);
    await t.seed(fixture);
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('delivers every event of back-to-back commands within seconds, with the sweep an hour away', async () => {
    // Slow on an order's first two events: the next command's event is committed, and its job
    // queued, while the one before is still being delivered.
    const slowFirst = (r: Received) => ({ status: 204, delayMs: r.body.seq < 3 ? 300 : 0 });
    const { parties, close } = await startPartyEndpoints(call, { seller: slowFirst, buyer: slowFirst });
    try {
      await Promise.all(ORDERS.map((order) => linkDeliveryFlow(call, order)));
      const perParty = ORDERS.length * 3;
      await until(`${perParty} deliveries to each party`, () => parties.every((p) => p.receiver.acknowledged.length >= perParty), 15_000);
      for (const p of parties) {
        for (const order of ORDERS) {
          const seqs = p.receiver.acknowledged.filter((r) => r.body.order_id === order).map((r) => r.body.seq);
          expect(seqs, `${p.party}, order ${order}`).toEqual([1, 2, 3]);
        }
      }
    } finally {
      await close();
    }
  });
});
