import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { signRequest } from '../src/auth/signer.ts';
import { SecretBox } from '../src/auth/secret-box.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { seedDatabase } from '../src/db/seed.ts';
import { fixtureSchema } from '../src/domain/fixture.ts';
import { startService } from '../src/service.ts';
import { recreateBenchDatabase } from './bench-database.ts';

/**
 * The command path end to end: `--clients` concurrent HTTP clients each run whole link-delivery
 * flows (accept → update to XMobileLink → complete), every call synchronous through Redis,
 * a BullMQ worker and one Postgres transaction, as `npm start` runs it (API and workers in one
 * process). Reports latency per call, flows per second, and the process's memory.
 */
const CRED = { token: 'BenchApiToken0000000000000000002', secret: 'bench-api-secret-00000000000000000000002' };

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { flows: { type: 'string', default: '2000' }, clients: { type: 'string', default: '16' } } });
  const flows = Number(values.flows);
  const clients = Number(values.clients);
  const url = process.env.BENCH_COMMANDS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/fulfil_bench_commands';
  const key = randomBytes(32).toString('hex');

  await recreateBenchDatabase(url);
  const database = await openDatabase({ databaseUrl: url, maxConnections: 2 });
  await migrateDatabase(database, url);
  await seedDatabase(database, fixtureSchema.parse(fixture()), SecretBox.fromKey(key));
  await database.sql!`
    insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email)
    select g, '1-' || g, 10, 2, 'tbd', 2, 'Bo Buyer', 'bo@example.test' from generate_series(1, ${flows}) g`;
  await database.close();

  const dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-bench-'));
  const service = await startService(
    loadConfig({
      DATABASE_URL: url, REDIS_URL: process.env.REDIS_URL, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent',
      DATA_DIR: dataDir, FULFIL_SECRET_KEY: key, QUEUE_PREFIX: `benchc${process.pid}`, RATE_LIMIT_PER_MINUTE: String(1e9),
    }),
    { api: true, worker: true },
  );
  const memory = sampleMemory();
  try {
    const call = httpClient(service.url!, clients);
    const latencies: Record<'accept' | 'update' | 'complete', number[]> = { accept: [], update: [], complete: [] };
    const timed = async (op: keyof typeof latencies, method: string, p: string, body?: object) => {
      const t0 = performance.now();
      const res = await call(method, p, body);
      latencies[op].push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`${op} ${p}: ${res.status} ${res.text}`);
      return JSON.parse(res.text);
    };
    let next = 1;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        for (let order = next++; order <= flows; order = next++) {
          const accepted = await timed('accept', 'POST', `/v9/orders/${order}/accept`, { reviewer_id: 100 });
          const updated = await timed('update', 'PUT', `/v9/shipments/${accepted.shipments[0].id}`, { mobile_transfer_type: 'XMobileLink' });
          await timed('complete', 'PUT', `/v9/shipments/${updated.id}/complete`, { x_mobile_link: 'https://claim.example.test/x' });
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const mem = memory.stop();
    const rows = Object.entries(latencies).map(
      ([op, l]) => `| ${op} | ${l.length} | ${pct(l, 50).toFixed(1)} | ${pct(l, 99).toFixed(1)} | ${Math.max(...l).toFixed(1)} |`,
    );
    process.stdout.write(
      [
        `### ${flows} link-delivery flows, ${clients} concurrent clients, API + workers in one process`,
        '',
        '| call | count | p50 ms | p99 ms | max ms |',
        '|---|---|---|---|---|',
        ...rows,
        '',
        `${(flows / seconds).toFixed(1)} flows/s, ${((flows * 3) / seconds).toFixed(1)} commands/s, ${seconds.toFixed(1)} s in all.`,
        `Memory (RSS) of the process: ${mb(mem.start)} MiB before, ${mb(mem.peak)} MiB at peak, ${mb(mem.end)} MiB after; heap used at peak ${mb(mem.heapPeak)} MiB.`,
        '',
      ].join('\n'),
    );
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return 0;
}

function fixture() {
  return {
    brokerages: [
      { id: 1, name: 'Seller', offices: [{ id: 10, name: 'Office' }], users: [{ id: 100, name: 'Rev', email: 'rev@seller.test' }], credentials: [{ kind: 'api', ...CRED }] },
      { id: 2, name: 'Buyer', offices: [], users: [], credentials: [] },
    ],
  };
}

function httpClient(baseUrl: string, sockets: number) {
  const base = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  return (method: string, p: string, body?: object) => {
    const bytes = body === undefined ? undefined : JSON.stringify(body);
    const signed = signRequest({ secret: CRED.secret, method, host: base.hostname, path: p, body: bytes });
    return new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        { method, host: base.hostname, port: base.port, path: signed.target, agent, headers: { 'x-token': CRED.token, 'x-signature': signed.signature, 'content-type': 'application/json' } },
        (res) => {
          res.setEncoding('utf8');
          let text = '';
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(bytes);
    });
  };
}

function sampleMemory() {
  const start = process.memoryUsage();
  let peak = start.rss;
  let heapPeak = start.heapUsed;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.rss);
    heapPeak = Math.max(heapPeak, m.heapUsed);
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      return { start: start.rss, peak, end: process.memoryUsage().rss, heapPeak };
    },
  };
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
