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

/** What a run of flows measured: its wall time, and every call's latency in ms (sorted). */
export interface FlowRun {
  seconds: number;
  p50: number;
  p99: number;
  latencies: number[];
}

/**
 * Runs link-delivery flows over orders [first, last] (every `step`th from first, so that several
 * load processes can share a range): `clients` concurrent loops, each taking the next order and
 * running accept → update → complete synchronously, spread over the API processes round robin.
 * Returns the wall time and latency percentiles over all calls.
 */
export async function runFlows(opts: {
  apiUrls: string[];
  clients: number;
  orders: [number, number];
  step?: number;
  credential: { token: string; secret: string };
}): Promise<FlowRun> {
  const step = opts.step ?? 1;
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
  const take = () => {
    const order = next;
    next += step;
    return order;
  };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: opts.clients }, async () => {
      for (let order = take(); order <= opts.orders[1]; order = take()) {
        const accepted = await timed('POST', `/v9/orders/${order}/accept`, { reviewer_id: 100 });
        const updated = await timed('PUT', `/v9/shipments/${accepted.shipments[0].id}`, { mobile_transfer_type: 'XMobileLink' });
        await timed('PUT', `/v9/shipments/${updated.id}/complete`, { x_mobile_link: 'https://claim.example.test/x' });
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), latencies };
}

/** The p-th percentile of sorted values (NaN for none). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
