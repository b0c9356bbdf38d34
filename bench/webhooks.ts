import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, setPriority, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { SecretBox } from '../src/auth/secret-box.ts';
import { openDatabase } from '../src/db/client.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { seedDatabase } from '../src/domain/seed.ts';
import { fixtureSchema } from '../src/domain/fixture.ts';
import { dropPrefix } from '../test/support/redis.ts';
import { recreateBenchDatabase } from './bench-database.ts';
import { fixture } from './commands.ts';
import { BUYER, httpCaller, isPickupOrder, PICKUP_BUYER, PICKUP_SELLER, SELLER } from './commands/flows.ts';
import { Recorder } from './commands/load.ts';
import { benchServiceEnv, cpuMsOf, freePort, rssOf, startServiceProcess } from './commands/processes.ts';

/**
 * Webhooks beside the command path, in one run, against `fulfil start` in its own process and a
 * receiver in another: commands at a fixed rate (open loop) first with no endpoint, then with one
 * endpoint per party (seller and buyer each receive every event of every order), then with none
 * again (the first phase also carries the service's warm-up). Reports the commands' latency each
 * time, the time from a command's answer to the receiver's 2xx of its event (p50/p99), and the
 * deliveries per second sustained.
 *
 * `--split` runs the service as an operator deploys it, an api process and a worker process
 * (the worker runs the commands, the relay and the deliveries), instead of one `fulfil start`.
 * `--delivery-apart` moves the deliveries to a `--role webhooks` process of their own (the worker
 * at WEBHOOK_CONCURRENCY=0), and `--delivery-nice <n>` runs that process at niceness n: on one
 * machine, what a deployment gets from giving delivery hosts or CPU quotas of their own.
 *
 *   npm run bench -- webhooks [--seconds 20] [--rate 100] [--split] [--delivery-apart [--delivery-nice 10]]
 */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: 'string', default: '20' },
      rate: { type: 'string', default: '100' },
      split: { type: 'boolean', default: false },
      'delivery-apart': { type: 'boolean', default: false },
      'delivery-nice': { type: 'string', default: '0' },
    },
  });
  const seconds = Number(values.seconds);
  const rate = Number(values.rate);
  const url = process.env.BENCH_WEBHOOKS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/fulfil_bench_webhooks';
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const key = randomBytes(32).toString('hex');
  const prefix = `benchw${process.pid}`;
  await recreateBenchDatabase(url);
  const database = await openDatabase({ databaseUrl: url, maxConnections: 2 });
  await migrateDatabase(database, url);
  await seedDatabase(database, fixtureSchema.parse(fixture()), SecretBox.fromKey(key));
  const orders = Math.ceil((rate / 3) * seconds * 3) + 100; // three phases
  await database.sql!`
    insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email)
    select g, '1-' || g, 10, 2, case when g % 2 = 1 then 'local_pickup' else 'tbd' end, 2, 'Bo Buyer', 'bo@example.test'
    from generate_series(1, ${orders}) g`;
  await database.close();

  const receiver = startReceiverProcess();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-benchw-'));
  const port = await freePort();
  const env = {
    ...benchServiceEnv({ databaseUrl: url, redisUrl, dataDir, key, prefix }),
    // The bench is one address standing for many clients: an overloaded run would otherwise
    // measure the per-address connection cap (its refused connections), not the service.
    HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
    WEBHOOK_ALLOW_PRIVATE: 'true',
  };
  const readyUrl = `http://127.0.0.1:${port}/readyz`;
  const apart = values['delivery-apart'];
  const procs = apart
    ? [
        await startServiceProcess('worker', { ...env, PORT: '0', WEBHOOK_CONCURRENCY: '0' }),
        await startServiceProcess('webhooks', { ...env, PORT: '0' }),
        await startServiceProcess('api', { ...env, PORT: String(port) }, readyUrl),
      ]
    : values.split
      ? [
          await startServiceProcess('worker', { ...env, PORT: '0' }),
          await startServiceProcess('api', { ...env, PORT: String(port) }, readyUrl),
        ]
      : [await startServiceProcess('all', { ...env, PORT: String(port) }, readyUrl)];
  const nice = Number(values['delivery-nice']);
  const delivery = procs.find((p) => p.role === 'webhooks');
  if (delivery && nice) setPriority(delivery.child.pid!, nice);
  const serviceCpuMs = () => procs.reduce((ms, p) => ms + cpuMsOf(p.child.pid!), 0);
  const call = httpCaller(`http://127.0.0.1:${port}`, 256);
  let nextOrder = 1;
  try {
    const receiverPort = await receiver.port;
    const cpuAtStart = serviceCpuMs();
    const baseline = await openLoop(call, rate, seconds, () => nextOrder++);
    const cpuBaseline = serviceCpuMs() - cpuAtStart;
    const endpoints: Array<[typeof SELLER, number]> = [];
    for (const cred of [SELLER, BUYER]) {
      const res = await call(cred, 'POST', '/v9/webhook_endpoints', { url: `http://127.0.0.1:${receiverPort}/hook` });
      if (res.status !== 201) throw new Error(`creating an endpoint: ${res.status} ${res.text}`);
      endpoints.push([cred, (JSON.parse(res.text) as { id: number }).id]);
    }
    receiver.receipts.length = 0;
    const cpuBefore = serviceCpuMs();
    const started = Date.now();
    const withHooks = await openLoop(call, rate, seconds, () => nextOrder++);
    const ended = Date.now();
    const expected = withHooks.answered.size * 2;
    const drainDeadline = Date.now() + 120_000;
    // Events of the first phase still in the outbox when the endpoints were made are owed to them
    // too: count only this phase's events, and any of them received more than once per endpoint.
    const ours = () => receiver.receipts.filter((r) => withHooks.answered.has(`${r.order}-${r.seq}`));
    while (ours().length < expected && Date.now() < drainDeadline) await new Promise((r) => setTimeout(r, 100));
    const drained = Date.now();
    const received = ours();
    const perEvent = new Map<string, number>();
    for (const r of received) perEvent.set(`${r.order}-${r.seq}`, (perEvent.get(`${r.order}-${r.seq}`) ?? 0) + 1);
    const duplicates = [...perEvent.values()].reduce((n, k) => n + Math.max(0, k - 2), 0);
    const earlier = receiver.receipts.length - received.length;
    const cpuWithHooks = serviceCpuMs() - cpuBefore;
    // The first phase also carries the service's warm-up: a third, without endpoints again, is the
    // fairer baseline for the command path beside the webhooks.
    for (const [cred, id] of endpoints) await call(cred, 'DELETE', `/v9/webhook_endpoints/${id}`);
    const after = await openLoop(call, rate, seconds, () => nextOrder++);

    const latencies = receiver.receipts
      .map((r) => r.at - (withHooks.answered.get(`${r.order}-${r.seq}`) ?? NaN))
      .filter((ms) => Number.isFinite(ms))
      .sort((a, b) => a - b);
    const during = receiver.receipts.filter((r) => r.at <= ended).length;
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
    const b = baseline.rec.summary(seconds, 0);
    const w = withHooks.rec.summary(seconds, 0);
    const a = after.rec.summary(seconds, 0);
    const lines = [
      `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 20).toFixed(0)} MiB, Node ${process.version}; ${new Date().toISOString()}; load average ${loadavg()[0]!.toFixed(1)}`,
      `load: ${rate} commands/s for ${seconds} s per phase (open loop); service: ${procs.map((p) => p.role).join(' + ')}${delivery && nice ? ` (webhooks at nice ${nice})` : ''}; receiver in its own process`,
      '',
      '| phase | commands | commands/s | command p50 ms | command p99 ms | errors |',
      '|---|---|---|---|---|---|',
      `| no endpoint | ${b.commands} | ${b.perSecond.toFixed(0)} | ${b.p50.toFixed(1)} | ${b.p99.toFixed(1)} | ${b.errors} |`,
      `| 2 endpoints (seller, buyer) | ${w.commands} | ${w.perSecond.toFixed(0)} | ${w.p50.toFixed(1)} | ${w.p99.toFixed(1)} | ${w.errors} |`,
      `| no endpoint again | ${a.commands} | ${a.perSecond.toFixed(0)} | ${a.p50.toFixed(1)} | ${a.p99.toFixed(1)} | ${a.errors} |`,
      '',
      `deliveries: ${received.length - duplicates} of ${expected} expected, ${duplicates} duplicates (and ${earlier} of the first phase's last events); ` +
        `${(during / ((ended - started) / 1000)).toFixed(0)}/s during the load, all delivered ${((drained - ended) / 1000).toFixed(1)} s after it ended`,
      `command answer → receiver 2xx: p50 ${pct(0.5).toFixed(1)} ms, p99 ${pct(0.99).toFixed(1)} ms, max ${(latencies.at(-1) ?? NaN).toFixed(1)} ms`,
      `service CPU (/proc utime+stime): ${(cpuBaseline / b.commands).toFixed(2)} ms per command without endpoints; ${(cpuWithHooks / w.commands).toFixed(2)} ms per command with them, so ${((cpuWithHooks - (cpuBaseline / b.commands) * w.commands) / Math.max(1, receiver.receipts.length)).toFixed(2)} ms per delivery`,
      `service RSS at the end: ${procs.map((p) => `${p.role} ${(rssOf(p.child.pid!) / 2 ** 20).toFixed(0)} MiB`).join(', ')}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (w.firstError) process.stderr.write(`first command error: ${w.firstError}\n`);
  } finally {
    for (const p of procs.reverse()) await p.stop();
    receiver.stop();
    await dropPrefix(prefix, redisUrl);
    rmSync(dataDir, { recursive: true, force: true });
  }
  return 0;
}

/**
 * Flows started at a fixed rate whatever the answers (3 commands each: link delivery on an even
 * order, the two-party pickup join on an odd one); remembers when each command's answer came,
 * keyed by the order and the seq of the event it made.
 */
async function openLoop(call: ReturnType<typeof httpCaller>, rate: number, seconds: number, takeOrder: () => number) {
  const rec = new Recorder();
  const answered = new Map<string, number>();
  const step = async (order: number, seq: number, send: () => Promise<{ status: number; text: string }>) => {
    const res = await rec.time(send);
    if (res.status !== 200) throw new Error(`${res.status} ${res.text.slice(0, 200)}`);
    answered.set(`${order}-${seq}`, Date.now());
    return JSON.parse(res.text) as { id: number; shipments: Array<{ id: number }> };
  };
  const flow = async (order: number) => {
    const accepted = await step(order, 1, () => call(SELLER, 'POST', `/v9/orders/${order}/accept`, { reviewer_id: 100 }));
    const first = accepted.shipments[0]!.id;
    if (isPickupOrder(order)) {
      const seller = await step(order, 2, () => call(SELLER, 'PUT', `/v9/shipments/${first}`, PICKUP_SELLER));
      await step(order, 3, () => call(BUYER, 'PUT', `/v9/shipments/${seller.id}`, PICKUP_BUYER));
    } else {
      const updated = await step(order, 2, () => call(SELLER, 'PUT', `/v9/shipments/${first}`, { mobile_transfer_type: 'XMobileLink' }));
      await step(order, 3, () =>
        call(SELLER, 'PUT', `/v9/shipments/${updated.id}/complete`, { x_mobile_link: 'https://claim.example.test/x' }),
      );
    }
  };
  const flows: Array<Promise<void>> = [];
  const intervalMs = 3000 / rate;
  const start = performance.now();
  for (let i = 0; performance.now() - start < seconds * 1000; i++) {
    const due = start + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    flows.push(flow(takeOrder()).catch((err) => rec.fail(err)));
  }
  await Promise.all(flows);
  return { rec, answered };
}

/** A plain Node receiver in its own process: answers 204 and prints order, seq and when it took each event. */
function startReceiverProcess() {
  const script = `
    const http = require('node:http');
    const server = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const e = JSON.parse(Buffer.concat(chunks));
        res.writeHead(204).end();
        process.stdout.write(e.order_id + ' ' + e.seq + ' ' + Date.now() + '\\n');
      });
    });
    server.keepAliveTimeout = 60000;
    server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const receipts: Array<{ order: number; seq: number; at: number }> = [];
  let resolvePort: (p: number) => void;
  const port = new Promise<number>((r) => (resolvePort = r));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const [a, b, c] = line.split(' ');
    if (a === 'port') resolvePort(Number(b));
    else receipts.push({ order: Number(a), seq: Number(b), at: Number(c) });
  });
  return { port, receipts, stop: () => child.kill('SIGTERM') };
}
