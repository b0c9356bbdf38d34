import http from 'node:http';
import { signRequest } from '../src/auth/signer.ts';

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
  const calls = opts.apiUrls.map((u) => httpClient(u, opts.clients, opts.credential));
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

function httpClient(baseUrl: string, sockets: number, cred: { token: string; secret: string }) {
  const base = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  return (method: string, p: string, body?: object) => {
    const bytes = body === undefined ? undefined : JSON.stringify(body);
    const signed = signRequest({ secret: cred.secret, method, host: base.hostname, path: p, body: bytes });
    return new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        {
          method,
          host: base.hostname,
          port: base.port,
          path: signed.target,
          agent,
          headers: { 'x-token': cred.token, 'x-signature': signed.signature, 'content-type': 'application/json' },
        },
        (res) => {
          res.setEncoding('utf8');
          let text = '';
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        },
      );
      req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${p}: no answer in 60 s`)));
      req.on('error', reject);
      req.end(bytes);
    });
  };
}
