import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsRegistry } from '../../src/telemetry/metrics-registry.ts';
import { apiClient, linkDeliveryFlow } from '../support/api.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver, until } from '../support/webhook-receiver.ts';

const HUNG_ORDERS = [900, 901, 902, 903];
const PAUSED_ORDERS = [910, 911];
const COOLDOWN_MS = 1_500;

/** The value of a counter or gauge of this process's registry, summed over the labels matching `labels`. */
async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const found = (await metricsRegistry.getMetricsAsJSON()).find((m) => m.name === name);
  const values = (found?.values ?? []) as { value: number; labels: Record<string, string> }[];
  return values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((n, v) => n + v.value, 0);
}

describe('webhook circuit breaker and Retry-After', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService({
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        RELAY_INTERVAL_MS: '50',
        WEBHOOK_CONNECT_TIMEOUT_MS: '300',
        WEBHOOK_RESPONSE_TIMEOUT_MS: '300',
        WEBHOOK_BACKOFF_BASE_MS: '50',
        WEBHOOK_BACKOFF_MAX_MS: '200',
        WEBHOOK_BREAKER_FAILURES: '2',
        WEBHOOK_BREAKER_COOLDOWN_MS: String(COOLDOWN_MS),
        WEBHOOK_SWEEP_EVERY_MS: '500',
      },
    });
    await t.seed(baseFixture([...HUNG_ORDERS, ...PAUSED_ORDERS]));
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('an endpoint that keeps timing out is called only as probes after its breaker opens, and gets everything once it answers', async () => {
    const calledAt: number[] = [];
    const rx = await startReceiver(() => {
      calledAt.push(Date.now());
      return 'hang';
    });
    try {
      const created = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: rx.url });
      expect(created.status).toBe(201);
      const deferredBefore = await metric('fulfil_webhook_jobs_deferred_total', { reason: 'breaker' });
      await Promise.all(HUNG_ORDERS.map((order) => linkDeliveryFlow(call, order)));
      await until('the first calls', () => calledAt.length >= 2);
      const opened = Date.now();
      await new Promise((r) => setTimeout(r, 4_000));
      // Without the breaker: four chains retrying every 0.1–0.5 s after a 0.3 s timeout, some 40
      // calls in these 4 s. With it: the two that opened it and those in flight then, and a probe
      // at most every 0.75–1.5 s.
      const during = calledAt.filter((at) => at >= opened).length;
      expect(during, `calls in the 4 s after the breaker opened: ${during}`).toBeLessThanOrEqual(10);
      // And probes keep coming while it is open: at the cooldown's pace, later on a loaded machine.
      await until('probes while the breaker is open', () => calledAt.filter((at) => at >= opened).length >= 2, 20_000);
      expect(await metric('fulfil_webhook_breakers_open')).toBeGreaterThanOrEqual(1);
      expect(await metric('fulfil_webhook_jobs_deferred_total', { reason: 'breaker' })).toBeGreaterThan(deferredBefore);

      rx.behave(() => 204);
      await until('every event delivered after a probe succeeds', () => rx.acknowledged.length === HUNG_ORDERS.length * 3, 30_000);
      for (const order of HUNG_ORDERS) {
        expect(rx.acknowledged.filter((r) => r.body.order_id === order).map((r) => r.body.seq)).toEqual([1, 2, 3]);
      }
      expect(await metric('fulfil_webhook_breakers_open')).toBe(0);
    } finally {
      await rx.close();
    }
  }, 60_000);

  it("a 429's Retry-After holds the endpoint's next calls, of every order, until then", async () => {
    const calls: { at: number; order: number; seq: number }[] = [];
    const rx = await startReceiver((r) => {
      calls.push({ at: Date.now(), order: r.body.order_id, seq: r.body.seq });
      return calls.length === 1 ? { status: 429, headers: { 'retry-after': '2' } } : 204;
    });
    try {
      const created = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: rx.url });
      expect(created.status).toBe(201);
      await linkDeliveryFlow(call, PAUSED_ORDERS[0]!);
      await until('the 429', () => calls.length === 1);
      await linkDeliveryFlow(call, PAUSED_ORDERS[1]!);
      await until('everything delivered', () => rx.acknowledged.length === PAUSED_ORDERS.length * 3, 30_000);
      const [refused, ...rest] = calls;
      // The backoff alone would have come back within 0.2 s; the other order waited too.
      for (const c of rest) expect(c.at - refused!.at, `order ${c.order} seq ${c.seq}`).toBeGreaterThanOrEqual(1_900);
      const log = await call(SELLER, 'GET', `/v9/webhook_endpoints/${created.body.id}/deliveries?order_id=${PAUSED_ORDERS[0]}`);
      expect(log.body.attempts.at(-1)).toMatchObject({ outcome: 'http_error', status_code: 429, error: 'Retry-After: 2 s' });
      expect(await metric('fulfil_webhook_jobs_deferred_total', { reason: 'retry_after' })).toBeGreaterThan(0);
    } finally {
      await rx.close();
    }
  }, 60_000);
});
