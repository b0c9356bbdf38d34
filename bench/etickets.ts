import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SecretBox } from '../src/auth/secret-box.ts';
import { signedFetch } from '../src/auth/signed-fetch.ts';
import { openDatabase } from '../src/db/client.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { fixtureSchema } from '../src/domain/fixture.ts';
import { seedDatabase } from '../src/domain/seed.ts';
import { dropPrefix } from '../test/support/redis.ts';
import { makePdf } from '../test/support/test-files.ts';
import { recreateBenchDatabase } from './bench-database.ts';
import { fixture } from './commands.ts';
import { SELLER, BUYER } from './commands/flows.ts';
import { benchServiceEnv, cpuMsOf, freePort, rssOf, startServiceProcess } from './commands/processes.ts';
import { hostileFiles } from './etickets-hostile.ts';

const SELLER_2 = { token: 'BenchSellerToken0000000000000002', secret: 'bench-seller-secret-00000000000000000002' };

/**
 * E-tickets beside the command path, in one run, against `fulfil start` in its own process
 * (Postgres store): the command path alone (accept + update to Eticket, a few callers); uploads
 * of one 10 MiB PDF at a time (MB/s of file, p50/p99 per upload); downloads of them (MB/s, p99);
 * then 16 uploads of 10 MiB at once while the command path runs again, with the service's RSS
 * sampled every 20 ms (its peak, against its RSS before) and the commands' latency beside it.
 *
 *   npm run bench -- etickets [--uploads 12] [--mib 10] [--commands 200] [--slots 2 (UPLOAD_CONCURRENCY)]
 */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      uploads: { type: 'string', default: '12' },
      mib: { type: 'string', default: '10' },
      commands: { type: 'string', default: '200' },
      slots: { type: 'string', default: '2' },
    },
  });
  const uploads = Number(values.uploads);
  const fileBytes = Math.floor(Number(values.mib) * 1024 * 1024) - 4096;
  const commands = Number(values.commands);
  const url = process.env.BENCH_ETICKETS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/fulfil_bench_etickets';
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const key = randomBytes(32).toString('hex');
  const prefix = `benche${process.pid}`;
  await recreateBenchDatabase(url);
  const database = await openDatabase({ databaseUrl: url, maxConnections: 2 });
  await migrateDatabase(database, url);
  // A second credential of the seller: each holds its share of the upload slots (half), so the
  // burst alternates the two to keep every slot busy.
  const withSecond = fixture();
  withSecond.brokerages[0]!.credentials.push({ kind: 'api', ...SELLER_2 });
  await seedDatabase(database, fixtureSchema.parse(withSecond), SecretBox.fromKey(key));
  const orders = uploads + 16 + commands * 2 + 60;
  await database.sql!`
    insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email)
    select g, '1-' || g, 10, 2, 'tbd', 1, 'Bo Buyer', 'bo@example.test' from generate_series(1, ${orders}) g`;

  const dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-benche-'));
  const port = await freePort();
  const env = {
    ...benchServiceEnv({ databaseUrl: url, redisUrl, dataDir, key, prefix }),
    HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
    PORT: String(port),
    UPLOAD_CONCURRENCY: String(values.slots),
    // The burst measures memory with every slot busy, not the 503s of uploads that waited too long.
    UPLOAD_QUEUE_MS: '60000',
  };
  const svc = await startServiceProcess('all', env, `http://127.0.0.1:${port}/readyz`);
  const base = `http://127.0.0.1:${port}`;
  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    process.stdout.write(`${line}\n`);
  };
  let nextOrder = 1;
  const call = async (cred: typeof SELLER, method: string, p: string, body?: object) => {
    const res = await signedFetch(base, cred, method, p, body);
    const bytes = Buffer.from(await res.arrayBuffer());
    return {
      status: res.status,
      bytes,
      json: () => JSON.parse(bytes.toString('utf8')) as { id: number; shipments: { id: number }[]; etickets: { url: string }[] },
    };
  };
  /** The command path: accept and update an order to Eticket, timing each command. */
  const commandPath = async (n: number, callers: number, times: number[]) => {
    const ids = Array.from({ length: n }, () => nextOrder++);
    await Promise.all(
      Array.from({ length: callers }, async () => {
        for (let id = ids.shift(); id !== undefined; id = ids.shift()) {
          let t = performance.now();
          const accepted = await call(SELLER, 'POST', `/v9/orders/${id}/accept`, { reviewer_id: 100 });
          times.push(performance.now() - t);
          if (accepted.status !== 200) throw new Error(`accept ${accepted.status}`);
          t = performance.now();
          const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.json().shipments[0]!.id}`, {
            mobile_transfer_type: 'Eticket',
          });
          times.push(performance.now() - t);
          if (updated.status !== 200) throw new Error(`update ${updated.status}`);
        }
      }),
    );
  };
  const eticketShipment = async () => {
    const id = nextOrder++;
    const accepted = await call(SELLER, 'POST', `/v9/orders/${id}/accept`, { reviewer_id: 100 });
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.json().shipments[0]!.id}`, { mobile_transfer_type: 'Eticket' });
    return updated.json().id;
  };
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? NaN;
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  try {
    say(
      `etickets bench: ${cpus().length} CPUs, files of ${(fileBytes / 2 ** 20).toFixed(2)} MiB (one single-page PDF per order of one ticket), Postgres store`,
    );
    const alone: number[] = [];
    await commandPath(commands, 4, alone);
    say(`command path alone (accept, update; 4 callers): ${alone.length} commands, p50 ${ms(pct(alone, 50))}, p99 ${ms(pct(alone, 99))}`);

    // Distinct files (content-addressed: the same bytes would be stored once).
    const pdfs = await Promise.all(Array.from({ length: uploads + 16 }, (_, i) => makePdf(1, `ticket ${i}`, fileBytes)));
    const shipments: number[] = [];
    for (let i = 0; i < uploads + 16; i++) shipments.push(await eticketShipment());

    const upTimes: number[] = [];
    const urls: string[] = [];
    let upBytes = 0;
    const upStart = performance.now();
    for (let i = 0; i < uploads; i++) {
      const t = performance.now();
      const res = await call(SELLER, 'POST', `/v9/shipments/${shipments[i]}/etickets`, {
        etickets: [{ eticket: pdfs[i]!.toString('base64') }],
      });
      upTimes.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`upload ${res.status} ${res.bytes.toString().slice(0, 200)}`);
      urls.push(res.json().etickets[0]!.url);
      upBytes += pdfs[i]!.length;
    }
    const upSeconds = (performance.now() - upStart) / 1000;
    say(
      `uploads, one at a time: ${uploads} × ${(upBytes / uploads / 2 ** 20).toFixed(1)} MiB, ${(upBytes / 2 ** 20 / upSeconds).toFixed(1)} MiB/s of file, p50 ${ms(pct(upTimes, 50))}, p99 ${ms(pct(upTimes, 99))}`,
    );

    const downTimes: number[] = [];
    let downBytes = 0;
    const downStart = performance.now();
    for (const u of urls) {
      const t = performance.now();
      const res = await call(BUYER, 'GET', u);
      downTimes.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`download ${res.status}`);
      downBytes += res.bytes.length;
    }
    const downSeconds = (performance.now() - downStart) / 1000;
    say(
      `downloads (buyer), one at a time: ${urls.length}, ${(downBytes / 2 ** 20 / downSeconds).toFixed(1)} MiB/s, p50 ${ms(pct(downTimes, 50))}, p99 ${ms(pct(downTimes, 99))}`,
    );

    await hostileFiles({ base, pid: svc.child.pid!, call, say, shipment: eticketShipment, pct, cpuMsOf, rssOf });

    const rssBefore = rssOf(svc.child.pid!);
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(svc.child.pid!))), 20);
    const beside: number[] = [];
    const statuses = new Map<number, number>();
    const burstTimes: number[] = [];
    const burstStart = performance.now();
    await Promise.all([
      ...Array.from({ length: 16 }, async (_, j) => {
        const i = uploads + j;
        const t = performance.now();
        const res = await call(j % 2 ? SELLER_2 : SELLER, 'POST', `/v9/shipments/${shipments[i]}/etickets`, {
          etickets: [{ eticket: pdfs[i]!.toString('base64') }],
        });
        burstTimes.push(performance.now() - t);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }),
      commandPath(commands, 4, beside),
    ]);
    const burstSeconds = (performance.now() - burstStart) / 1000;
    clearInterval(sampler);
    say(
      `16 uploads of ${(fileBytes / 2 ** 20).toFixed(0)} MiB at once (UPLOAD_CONCURRENCY ${values.slots}): answers ${[...statuses].map(([s, n]) => `${n}× ${s}`).join(', ')}, all done in ${burstSeconds.toFixed(1)} s, p99 ${ms(pct(burstTimes, 99))}; service RSS ${(rssBefore / 2 ** 20).toFixed(0)} MiB before, peak ${(peak / 2 ** 20).toFixed(0)} MiB`,
    );
    say(`command path beside them (4 callers): ${beside.length} commands, p50 ${ms(pct(beside, 50))}, p99 ${ms(pct(beside, 99))}`);
    return 0;
  } finally {
    await svc.stop();
    await database.close();
    await dropPrefix(prefix);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
