import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, linkDeliveryFlow } from '../support/api.ts';
import { baseFixture, BUYER, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver, until } from '../support/webhook-receiver.ts';

// One brokerage (the seller's) has 50 endpoints whose receivers accept the connection and never
// answer; another (the buyer's) has one healthy receiver. Every event goes to all 51. The buyer's
// events must still arrive within 2 s of their commit, and the hanging brokerage must never hold
// more than its share of the process's call slots.

const HANGING = 50;
const ORDERS = Array.from({ length: 15 }, (_, i) => 900 + i);
const CALL_TIMEOUT_MS = 2_000;
const SLOTS = 16;
const PER_BROKERAGE = 8;

/** A TCP server that accepts and reads, and never writes a byte: a receiver that hangs. */
async function startHangingServer() {
  const sockets = new Set<net.Socket>();
  let open = 0;
  const counter = { calls: 0, open: () => open };
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let counted = false;
    socket.on('data', () => {
      if (counted) return;
      counted = true;
      counter.calls++;
      open++;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      if (counted) open--;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    counter,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Nearest-rank percentile; a missing value counts as never. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Infinity;
}

describe('webhook fairness between brokerages', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService({
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        RELAY_INTERVAL_MS: '50',
        WEBHOOK_CONCURRENCY: String(SLOTS),
        WEBHOOK_MAX_INFLIGHT_PER_BROKERAGE: String(PER_BROKERAGE),
        WEBHOOK_MAX_ENDPOINTS_PER_BROKERAGE: String(HANGING),
        WEBHOOK_CONNECT_TIMEOUT_MS: String(CALL_TIMEOUT_MS),
        WEBHOOK_RESPONSE_TIMEOUT_MS: String(CALL_TIMEOUT_MS),
        WEBHOOK_BACKOFF_BASE_MS: '500',
        WEBHOOK_BACKOFF_MAX_MS: '2000',
        WEBHOOK_SWEEP_EVERY_MS: '1000',
      },
    });
    await t.seed(baseFixture(ORDERS));
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it("another brokerage's events reach its receiver within 2 s (p99) while one brokerage's 50 endpoints hang", async () => {
    const hanging = await Promise.all(Array.from({ length: HANGING }, startHangingServer));
    const arrivedAt = new Map<string, number>();
    const healthy = await startReceiver((r) => {
      if (!arrivedAt.has(r.eventId)) arrivedAt.set(r.eventId, Date.now());
      return 204;
    });
    // The most calls the hanging brokerage had in flight at any moment.
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(
        peak,
        hanging.reduce((n, h) => n + h.counter.open(), 0),
      );
    }, 10);
    try {
      for (const h of hanging) {
        const created = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: h.url });
        expect(created.status).toBe(201);
      }
      const created = await call(BUYER, 'POST', '/v9/webhook_endpoints', { url: healthy.url });
      expect(created.status).toBe(201);

      // Orders one after another, for about ten seconds: the hanging endpoints' calls, retries
      // and backlog build up while the buyer's events keep coming.
      for (const order of ORDERS) {
        await linkDeliveryFlow(call, order);
        await new Promise((r) => setTimeout(r, 500));
      }
      const expected = ORDERS.length * 3;
      await until('the buyer has every event', () => healthy.acknowledged.length >= expected, 60_000).catch(() => {});

      const latencies = healthy.acknowledged.map((r) => arrivedAt.get(r.eventId)! - Date.parse(r.body.created_at));
      const missing = expected - healthy.acknowledged.length;
      const p99 = missing > 0 ? Infinity : percentile(latencies, 99);
      const figures = `p50 ${percentile(latencies, 50)} ms, p99 ${p99} ms, max ${Math.max(...latencies)} ms, ${missing} of ${expected} not delivered; hanging brokerage's peak in flight ${peak}`;
      console.log(`buyer's events, commit → receiver: ${figures}`);
      expect(p99, figures).toBeLessThanOrEqual(2_000);
      // Each event once, in seq order per order.
      for (const order of ORDERS) {
        const seqs = healthy.acknowledged.filter((r) => r.body.order_id === order).map((r) => r.body.seq);
        expect(seqs, `order ${order}`).toEqual([1, 2, 3]);
      }
      expect(peak, figures).toBeLessThanOrEqual(PER_BROKERAGE);
    } finally {
      clearInterval(sampler);
      await healthy.close();
      await Promise.all(hanging.map((h) => h.close()));
    }
  }, 120_000);
});
