import { httpCaller } from './commands/flows.ts';

export const BENCH_CREDENTIAL = { token: 'ScaleApiToken0000000000000000002', secret: 'scale-api-secret-00000000000000000000002' };

/** One seller with an API credential and one buyer; the orders are inserted in bulk by the bench. */
export function benchFixture() {
  return {
    brokerages: [
      {
        id: 1,
        name: 'Seller',
        offices: [{ id: 10, name: 'Office' }],
        users: [{ id: 100, name: 'Rev', email: 'rev@seller.test' }],
        credentials: [{ kind: 'api', ...BENCH_CREDENTIAL }],
      },
      { id: 2, name: 'Buyer', offices: [], users: [], credentials: [] },
    ],
  };
}

/**
 * Runs link-delivery flows over orders [first, last]: `clients` concurrent loops, each taking the
 * next order and running accept → update → complete synchronously, spread over the API
 * processes round robin. Returns the wall time and latency percentiles over all calls.
 */
export async function runFlows(opts: {
  apiUrls: string[];
  clients: number;
  orders: [number, number];
  credential: { token: string; secret: string };
}): Promise<{ seconds: number; p50: number; p99: number }> {
  const calls = opts.apiUrls.map((u) => {
    const call = httpCaller(u, opts.clients);
    return (method: string, p: string, body?: object) => call(opts.credential, method, p, body);
  });
  const latencies: number[] = [];
  let turn = 0;
  const timed = async (method: string, p: string, body?: object) => {
    const call = calls[turn++ % calls.length]!;
    const t0 = performance.now();
    const res = await call(method, p, body);
    latencies.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${res.text}`);
    return JSON.parse(res.text);
  };
  let next = opts.orders[0];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: opts.clients }, async () => {
      for (let order = next++; order <= opts.orders[1]; order = next++) {
        const accepted = await timed('POST', `/v9/orders/${order}/accept`, { reviewer_id: 100 });
        const updated = await timed('PUT', `/v9/shipments/${accepted.shipments[0].id}`, { mobile_transfer_type: 'XMobileLink' });
        await timed('PUT', `/v9/shipments/${updated.id}/complete`, { x_mobile_link: 'https://claim.example.test/x' });
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return { seconds, p50: pct(50), p99: pct(99) };
}
