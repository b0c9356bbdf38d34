import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SecretBox } from '../src/auth/secret-box.ts';
import { FulfilmentClient } from '@fulfil/client';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { seedDatabase } from '../src/domain/seed.ts';
import { fixtureSchema } from '../src/domain/fixture.ts';
import { blockingConnection, type RedisConnection } from '@fulfil/client/transport';
import { startService } from '../src/service.ts';
import { dropPrefix } from '../test/support/redis.ts';
import { recreateBenchDatabase } from './bench-database.ts';
import { capCommandRows } from './commands/cap-command.ts';
import { BUYER, clientFlow, httpCaller, httpFlow, SELLER } from './commands/flows.ts';
import { startNoopQueue, transactionFlow } from './commands/limits.ts';
import { closedLoop, LoadStop, Recorder, type Summary } from './commands/load.ts';
import { splitCompare, splitCompareTable } from './commands/split-compare.ts';
import { benchServiceEnv, freePort, rssOf, startServiceProcess, type ServiceProcess } from './commands/processes.ts';
import postgres from 'postgres';
import { BackendCpu } from './commands/backend-cpu.ts';
import { findDesignCap, MISSING_CAP, prepareDesignCap, type CapRow, type CpuPerCommand } from './commands/design-cap.ts';
import { printReport, type Row } from './commands/report.ts';
import { paced, tracingRounds, tracingSummary } from './commands/tracing.ts';
import { warmUp } from './commands/warm-up.ts';

/**
 * The command path beside its limits, in one run. For each number of concurrent callers, for a
 * fixed time each: whole flows (link delivery, and the local-pickup join) as signed HTTP calls
 * through the real ingress, queue, workers and Postgres, with `fulfil start` in one process and
 * as `--role api` + `--role worker`; the same flows through FulfilmentClient awaiting each
 * result; the design cap's own command alone (bench/commands/cap-command.ts); and the two limits
 * the service is built on — the workers' transaction alone, and a BullMQ add + wait round trip
 * with a no-op worker. Statements per command are counted on a
 * separate in-process run with every statement the service sends (relay included). The design cap
 * (bench/commands/design-cap.ts) runs first, in the same run, and the service's rows print CPU
 * milliseconds per command for its Node processes, Postgres and Redis, measured as the cap does.
 *
 *   DESIGN_CAP_DIR=… npm run bench -- commands [--seconds 8] [--callers 1,8,32,64] [--warmup 10] [--cap-callers 32] [--soak]
 *   DESIGN_CAP_DIR=… npm run bench -- commands --only cap,split --compare <checkout> [--rounds 2] [--rate <commands/s>] [--warmup 30] [--together]
 *   npm run bench -- commands --only tracing [--rounds 2] [--no-json] [--variant 'label:K=V,…']… [--compare <checkout>] [--rate <commands/s>] [--together]
 */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: 'string', default: '8' },
      callers: { type: 'string', default: '1,8,32,64' },
      soak: { type: 'boolean', default: false },
      'soak-minutes': { type: 'string', default: '10' },
      only: { type: 'string' },
      'design-cap': { type: 'string' },
      'cap-callers': { type: 'string', default: '32' },
      rounds: { type: 'string', default: '2' },
      variant: { type: 'string', multiple: true },
      compare: { type: 'string' },
      'no-json': { type: 'boolean', default: false },
      rate: { type: 'string' },
      warmup: { type: 'string', default: '10' },
      together: { type: 'boolean', default: false },
    },
  });
  const seconds = Number(values.seconds);
  const warmSeconds = Number(values.warmup);
  const levels = values.callers.split(',').map(Number);
  const only = values.only?.split(',');
  const want = (phase: string) => !only || only.includes(phase);
  const url = process.env.BENCH_COMMANDS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/fulfil_bench_commands';
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const key = randomBytes(32).toString('hex');
  const prefix = `benchc${process.pid}`;
  const concurrency = process.env.WORKER_CONCURRENCY ?? '16';
  const capDir = want('cap') && !values.soak ? findDesignCap(values['design-cap']) : undefined;
  if (want('cap') && !values.soak && !capDir) {
    process.stderr.write(`${MISSING_CAP}\n`);
    return 2;
  }
  const cap = capDir ? await prepareDesignCap(capDir, url) : undefined;
  const capRows: CapRow[] = [];

  const orders = values.soak ? 1_500_000 : 600_000;
  /** A bench database: recreated, migrated, seeded with the fixture and `orders` open orders. */
  const prepareDatabase = async (at: string) => {
    await recreateBenchDatabase(at);
    const db = await openDatabase({
      databaseUrl: at,
      maxConnections: 10,
      timeouts: { connectMs: 5_000, statementMs: 0, idleInTransactionMs: 0, idleMs: 0 },
    });
    await migrateDatabase(db, at);
    await seedDatabase(db, fixtureSchema.parse(fixture()), SecretBox.fromKey(key));
    await db.sql!`
      insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email)
      select g, '1-' || g, 10, 2, case when g % 2 = 1 then 'local_pickup' else 'tbd' end, 2, 'Bo Buyer', 'bo@example.test'
      from generate_series(1, ${orders}) g`;
    await db.sql!`vacuum analyze orders`;
    return db;
  };
  const database = await prepareDatabase(url);
  const adminUrl = new URL(url);
  adminUrl.pathname = '/postgres';
  const admin = postgres(adminUrl.toString(), { max: 1, onnotice: () => {} });
  const backends = cap ? new BackendCpu(admin, new URL(url).pathname.slice(1), cap.meters.processCpu) : undefined;
  backends?.start();
  const redisPort = Number(new URL(redisUrl).port || 6379);
  let nextOrder = 1;
  const takeOrder = () => {
    if (nextOrder > orders) throw new Error('out of seeded orders: lower --seconds');
    return nextOrder++;
  };

  const dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-bench-'));
  const env = { ...benchServiceEnv({ databaseUrl: url, redisUrl, dataDir, key, prefix }), WORKER_CONCURRENCY: concurrency };
  const rows: Row[] = [];
  const memory: string[] = [];
  let tracingTable: string | undefined;
  let compareTable: string | undefined;
  const phase = async (
    name: string,
    callers: number,
    flow: (rec: Recorder) => Promise<void>,
    watch: ServiceProcess[] = [],
  ): Promise<Summary & { nodeMs?: number }> => {
    const rec = new Recorder();
    const rssStart = watch.map((p) => rssOf(p.child.pid!));
    const cpuStart = await cpuNow(watch);
    const elapsed = await closedLoop(callers, seconds, async (_caller, until) => {
      while (performance.now() < until)
        await flow(rec).catch((err) => {
          if (err instanceof LoadStop) throw err;
          rec.fail(err);
        });
    });
    const summary = rec.summary(elapsed, callers);
    const cpuEnd = await cpuNow(watch);
    const cpu = cpuStart && cpuEnd ? perCommand(cpuStart, cpuEnd, summary.commands) : undefined;
    rows.push({ phase: name, ...summary, ...(cpu ? { cpu } : {}) });
    if (watch.length)
      memory.push(
        `${name} at ${callers}: ${watch.map((p, i) => `${p.role} ${mb(rssStart[i]!)}→${mb(rssOf(p.child.pid!))} MiB`).join(', ')}`,
      );
    process.stderr.write(
      `${name.padEnd(34)} ${String(callers).padStart(3)} callers: ${summary.perSecond.toFixed(0)} commands/s, p50 ${summary.p50.toFixed(1)} ms, p99 ${summary.p99.toFixed(1)} ms, errors ${summary.errors}${summary.firstError ? ` (${summary.firstError})` : ''}${cpu ? `; CPU ms/command node ${cpu.node.toFixed(2)} · postgres ${cpu.postgres.toFixed(2)} · redis ${cpu.redis.toFixed(2)}` : ''}\n`,
    );
    return cpu ? { ...summary, nodeMs: cpu.node } : summary;
  };
  /** CPU seconds so far of the watched service processes, the bench database's backends, and Redis. */
  async function cpuNow(watch: ServiceProcess[]): Promise<CpuPerCommand | undefined> {
    if (!cap || !backends || watch.length === 0) return undefined;
    const node = watch.reduce((sum, p) => sum + cap.meters.processCpu(p.child.pid!), 0);
    return { node, postgres: await backends.total(), redis: cap.meters.redisCpu(redisPort) };
  }

  try {
    if (values.soak) {
      const minutes = Number(values['soak-minutes']);
      return await soak({ env, minutes, takeOrder, rows });
    }
    const statements = want('statements')
      ? await countStatements({ url, redisUrl, key, prefix: `${prefix}s`, dataDir, takeOrder })
      : undefined;

    if (cap) {
      capRows.push(...(await cap.run(Number(values['cap-callers']), seconds, redisPort, admin)));
      for (const r of capRows) {
        process.stderr.write(
          `${'design cap'.padEnd(34)} ${String(r.callers).padStart(3)} callers: ${r.perSecond.toFixed(0)} commands/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, errors ${r.errors}; CPU ms/command node ${r.cpu.node.toFixed(2)} · postgres ${r.cpu.postgres.toFixed(2)} · redis ${r.cpu.redis.toFixed(2)}\n`,
        );
      }
    }
    if (want('one')) {
      const port = await freePort();
      const svc = await startServiceProcess('all', { ...env, PORT: String(port) }, `http://127.0.0.1:${port}/readyz`);
      try {
        await warmUp(`http://127.0.0.1:${port}`, takeOrder, warmSeconds);
        const call = httpCaller(`http://127.0.0.1:${port}`, 128);
        for (const c of levels) await phase('service, one process (HTTP)', c, (rec) => httpFlow(call, rec, takeOrder()), [svc]);
        if (want('client')) {
          const client = new FulfilmentClient({ redisUrl, prefix, defaultTimeoutMs: 30_000 });
          try {
            for (const c of levels) await phase('service, FulfilmentClient', c, (rec) => clientFlow(client, rec, takeOrder()), [svc]);
          } finally {
            await client.close();
          }
        }
      } finally {
        await svc.stop();
      }
    }
    if (want('same')) await capCommandRows({ env, levels, seconds, warmSeconds, takeOrder, sql: database.sql!, phase });
    if (want('split') && values.compare) {
      // This build beside another checkout's, alternated or together (bench/commands/split-compare.ts).
      // Together, the second build gets a database of its own: one relay leads per database.
      const secondUrl = `${url}_b`;
      const second = values.together ? await prepareDatabase(secondUrl) : undefined;
      await second?.close();
      const runs = await splitCompare({
        secondEnv: { DATABASE_URL: secondUrl, QUEUE_PREFIX: `${prefix}b` },
        compare: values.compare,
        rounds: Number(values.rounds),
        together: values.together,
        env,
        warmSeconds,
        takeOrder,
        measure: (name, url, watch) => {
          const call = httpCaller(url, 128);
          const flow = (rec: Recorder) => httpFlow(call, rec, takeOrder());
          return phase(name, levels[0]!, values.rate ? paced(Number(values.rate), 3)(flow) : flow, watch);
        },
      });
      compareTable = splitCompareTable(runs);
    } else if (want('split')) {
      const port = await freePort();
      const worker = await startServiceProcess('worker', { ...env, PORT: '0' });
      const api = await startServiceProcess('api', { ...env, PORT: String(port) }, `http://127.0.0.1:${port}/readyz`);
      try {
        await warmUp(`http://127.0.0.1:${port}`, takeOrder, warmSeconds);
        const call = httpCaller(`http://127.0.0.1:${port}`, 128);
        for (const c of levels) await phase('service, api + worker (HTTP)', c, (rec) => httpFlow(call, rec, takeOrder()), [api, worker]);
      } finally {
        await api.stop();
        await worker.stop();
      }
    }
    // Opt-in (--only tracing): the service in one process with tracing off and on, alternated
    // --rounds times (bench/commands/tracing.ts).
    if (only?.includes('tracing')) {
      const runs = await tracingRounds({
        rounds: Number(values.rounds),
        levels,
        env,
        extra: values.variant ?? [],
        compare: values.compare,
        json: !values['no-json'],
        together: values.together,
        phase: (name, callers, svc, url) => {
          const call = httpCaller(url, 128);
          const flow = (rec: Recorder) => httpFlow(call, rec, takeOrder());
          return phase(name, callers, values.rate ? paced(Number(values.rate), 3)(flow) : flow, [svc]);
        },
        memory,
      });
      tracingTable = tracingSummary(runs);
    }
    if (want('transaction')) {
      for (const c of levels) await phase('limit: worker transaction alone', c, (rec) => transactionFlow(database, rec, takeOrder()));
    }
    if (want('bullmq')) {
      const conns: RedisConnection[] = [];
      const noop = await startNoopQueue({
        prefix,
        connection: () => (conns.push(blockingConnection(redisUrl)), conns.at(-1)!),
        concurrency: Number(concurrency),
      });
      try {
        for (const c of levels) await phase('limit: BullMQ add + wait, no-op', c, (rec) => noop.roundTrip(rec));
      } finally {
        await noop.close();
        for (const c of conns) c.disconnect();
      }
    }
    printReport({
      rows,
      capRows,
      statements,
      memory,
      seconds,
      ...(tracingTable ? { tracing: tracingTable } : {}),
      ...(compareTable ? { compare: compareTable } : {}),
      machine: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${mb(totalmem())} MiB, Node ${process.version}, worker concurrency ${concurrency}`,
    });
  } finally {
    await backends?.stop();
    await admin.end();
    await database.close();
    await dropPrefix(prefix, redisUrl);
    rmSync(dataDir, { recursive: true, force: true });
    cap?.close();
  }
  return 0;
}

const perCommand = (from: CpuPerCommand, to: CpuPerCommand, commands: number): CpuPerCommand => {
  const ms = (s: number) => (s * 1000) / Math.max(1, commands);
  return { node: ms(to.node - from.node), postgres: ms(to.postgres - from.postgres), redis: ms(to.redis - from.redis) };
};

/** Statements per command over every statement the service sent (API, workers, relay), in process. */
async function countStatements(o: {
  url: string;
  redisUrl: string;
  key: string;
  prefix: string;
  dataDir: string;
  takeOrder: () => number;
}) {
  let count = 0;
  const service = await startService(
    loadConfig({
      ...benchServiceEnv({ databaseUrl: o.url, redisUrl: o.redisUrl, dataDir: o.dataDir, key: o.key, prefix: o.prefix }),
      PORT: '0',
    }),
    { api: true, worker: true },
    undefined,
    { onStatement: () => count++ },
  );
  try {
    const call = httpCaller(service.url!, 8);
    const warm = new Recorder();
    for (let i = 0; i < 4; i++) await httpFlow(call, warm, o.takeOrder());
    await new Promise((r) => setTimeout(r, 300));
    const rec = new Recorder();
    count = 0;
    await closedLoop(8, 3, async (_c, until) => {
      while (performance.now() < until) await httpFlow(call, rec, o.takeOrder());
    });
    await new Promise((r) => setTimeout(r, 500)); // the relay's last batch
    const commands = rec.summary(1, 8).commands;
    return { statements: count, commands, perCommand: count / commands };
  } finally {
    await service.stop();
    await dropPrefix(o.prefix, o.redisUrl);
  }
}

/** Ten minutes (by default) at 32 callers, RSS of the service process at start, middle and end. */
async function soak(o: { env: Record<string, string>; minutes: number; takeOrder: () => number; rows: Row[] }): Promise<number> {
  const port = await freePort();
  const svc = await startServiceProcess('all', { ...o.env, PORT: String(port) }, `http://127.0.0.1:${port}/readyz`);
  try {
    const call = httpCaller(`http://127.0.0.1:${port}`, 64);
    const rec = new Recorder();
    const samples: string[] = [];
    const started = Date.now();
    const sampler = setInterval(
      () => samples.push(`${((Date.now() - started) / 60_000).toFixed(1)} min: ${mb(rssOf(svc.child.pid!))} MiB`),
      30_000,
    );
    samples.push(`start: ${mb(rssOf(svc.child.pid!))} MiB`);
    const elapsed = await closedLoop(32, o.minutes * 60, async (_c, until) => {
      while (performance.now() < until) await httpFlow(call, rec, o.takeOrder()).catch((err) => rec.fail(err));
    });
    clearInterval(sampler);
    samples.push(`end: ${mb(rssOf(svc.child.pid!))} MiB`);
    const s = rec.summary(elapsed, 32);
    process.stdout.write(
      [
        `### Soak: ${o.minutes} min at 32 callers, one process`,
        '',
        `${s.commands} commands, ${s.perSecond.toFixed(0)} commands/s, p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, max ${s.max.toFixed(0)} ms, errors ${s.errors}`,
        '',
        `RSS of the service process: ${samples.join('; ')}`,
        '',
      ].join('\n'),
    );
  } finally {
    await svc.stop();
  }
  return 0;
}

export function fixture() {
  return {
    brokerages: [
      {
        id: 1,
        name: 'Seller',
        offices: [{ id: 10, name: 'Office' }],
        users: [{ id: 100, name: 'Rev', email: 'rev@seller.test' }],
        credentials: [{ kind: 'api', ...SELLER }],
      },
      { id: 2, name: 'Buyer', offices: [], users: [], credentials: [{ kind: 'api', ...BUYER }] },
    ],
  };
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
