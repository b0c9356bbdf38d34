import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { SecretBox } from '../src/auth/secret-box.ts';
import { openDatabase } from '../src/db/client.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { seedDatabase } from '../src/db/seed.ts';
import { fixtureSchema } from '../src/domain/fixture.ts';
import { startPrivateRedis } from '../src/redis/private-server.ts';
import { startPrivatePrimary } from '../test/support/private-postgres.ts';
import { recreateBenchDatabase } from './bench-database.ts';
import { pgSnapshot, pgWork, processTreeCpuMs, type PgWork } from './postgres-work.ts';
import { BENCH_CREDENTIAL, benchFixture, runFlows } from './scale-flows.ts';
import { startFleet } from './scale-processes.ts';
import { layoutReport, parseLayouts, type LayoutRow } from './scale-layouts.ts';
import { startRedisCluster, type PrivateCluster } from '../test/support/redis-cluster.ts';

/**
 * `npm run bench -- scale`: the command flow (signed HTTP accept → update → complete, each call
 * synchronous through the API, Redis, a worker and Postgres) against separate `--role api` and
 * `--role worker` processes, for several process counts. Postgres and Redis are private servers
 * started here (pg_stat_statements loaded, fsync on; Redis with AOF as the service starts it),
 * so their CPU and Postgres's WAL, statements and lock time per command can be measured.
 */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      flows: { type: 'string', default: '400' },
      clients: { type: 'string', default: '32' },
      // api×workers per run
      configs: { type: 'string', default: '1x1,1x2,1x4,2x2,2x4' },
      // Redis layouts compared (docs/SCALING.md): `single:N` or `cluster:N`, N = COMMAND_SHARDS
      redis: { type: 'string', default: 'single:1,cluster:1,cluster:3' },
      // api×workers of the Redis layout rows
      'redis-config': { type: 'string', default: '1x2' },
    },
  });
  const flows = Number(values.flows);
  const clients = Number(values.clients);
  const configs = values.configs
    .split(',')
    .filter(Boolean)
    .map((c) => c.split('x').map(Number) as [number, number]);
  const warmup = Math.min(60, clients * 2);

  const layouts = parseLayouts(values.redis);
  const [layoutApis, layoutWorkers] = values['redis-config'].split('x').map(Number) as [number, number];

  const dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-bench-scale-'));
  const pg = await startPrivatePrimary({
    shared_preload_libraries: 'pg_stat_statements',
    'pg_stat_statements.track': 'all',
    max_connections: '300',
    shared_buffers: '256MB',
  });
  const redis = await startPrivateRedis(path.join(dataDir, 'redis'));
  const postmasterPid = Number(readFileSync(path.join(pg.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const admin = postgres(pg.url, { max: 2, onnotice: () => {} });
  const results: Row[] = [];
  const layoutRows: LayoutRow[] = [];
  let cluster: PrivateCluster | undefined;
  const measure = async (o: { apis: number; workers: number; redisUrl: string; redisPids: number[]; shards: number; label: string }) => {
    const url = pg.url.replace(/\/postgres$/, '/fulfil_bench_scale');
    const key = randomBytes(32).toString('hex');
    await recreateBenchDatabase(url);
    const database = await openDatabase({ databaseUrl: url, maxConnections: 2 });
    await migrateDatabase(database, url);
    await seedDatabase(database, fixtureSchema.parse(benchFixture()), SecretBox.fromKey(key));
    await database.sql!`
      insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email)
      select g, '1-' || g, 10, 2, 'tbd', 2, 'Bo Buyer', 'bo@example.test' from generate_series(1, ${flows + warmup}) g`;
    await database.close();

    const fleet = await startFleet({
      apis: o.apis,
      workers: o.workers,
      env: {
        DATABASE_URL: url,
        REDIS_URL: o.redisUrl,
        COMMAND_SHARDS: String(o.shards),
        QUEUE_PREFIX: `scale${o.label}`,
        LOG_LEVEL: 'warn',
        FULFIL_SECRET_KEY: key,
        RATE_LIMIT_PER_MINUTE: String(1e9),
        DATA_DIR: path.join(dataDir, o.label),
      },
    });
    try {
      await runFlows({ apiUrls: fleet.apiUrls, clients, orders: [flows + 1, flows + warmup], credential: BENCH_CREDENTIAL });
      // Redis's CPU with the fleet idle (blocking reads, timers): per master, what is not per command.
      const idleStart = o.redisPids.map((pid) => processTreeCpuMs(pid));
      await new Promise((r) => setTimeout(r, IDLE_MS));
      const idleMsPerSecond = o.redisPids.map((pid, i) => ((processTreeCpuMs(pid) - idleStart[i]!) * 1000) / IDLE_MS);
      const before = await pgSnapshot(admin, 'fulfil_bench_scale', postmasterPid);
      const redisBefore = o.redisPids.map((pid) => processTreeCpuMs(pid));
      const apiBefore = fleetCpuMs(fleet.apiPids);
      const workerBefore = fleetCpuMs(fleet.workerPids);
      const run = await runFlows({ apiUrls: fleet.apiUrls, clients, orders: [1, flows], credential: BENCH_CREDENTIAL });
      const after = await pgSnapshot(admin, 'fulfil_bench_scale', postmasterPid);
      const perRedisMs = o.redisPids.map((pid, i) => processTreeCpuMs(pid) - redisBefore[i]!);
      const redisMs = perRedisMs.reduce((a, b) => a + b, 0);
      const apiMs = fleetCpuMs(fleet.apiPids) - apiBefore;
      const workerMs = fleetCpuMs(fleet.workerPids) - workerBefore;
      const serviceMs = apiMs + workerMs;
      const commands = flows * 3;
      process.stderr.write(`${o.label}: ${(commands / run.seconds).toFixed(0)} commands/s, p99 ${run.p99.toFixed(0)} ms\n`);
      return {
        row: {
          apis: o.apis,
          workers: o.workers,
          commandsPerSecond: commands / run.seconds,
          p50: run.p50,
          p99: run.p99,
          work: await pgWork(admin, before, after, commands),
          redisCpuMsPerCommand: redisMs / commands,
          redisCores: redisMs / 1000 / run.seconds,
          serviceCpuMsPerCommand: serviceMs / commands,
          serviceCores: serviceMs / 1000 / run.seconds,
          apiCpuMsPerCommand: apiMs / commands,
          workerCpuMsPerCommand: workerMs / commands,
        } satisfies Row,
        perRedisMsPerCommand: perRedisMs.map((ms) => ms / commands),
        perRedisMarginalMs: perRedisMs.map((ms, i) => Math.max(0, ms - idleMsPerSecond[i]! * run.seconds) / commands),
      };
    } finally {
      await fleet.stop();
    }
  };
  try {
    await admin`create extension if not exists pg_stat_statements`;
    for (const [apis, workers] of configs) {
      results.push(
        (await measure({ apis, workers, redisUrl: redis.url, redisPids: [redis.pid], shards: 1, label: `${apis}x${workers}` })).row,
      );
    }
    // The same flows on one Redis and on a three-master cluster, with one and with more shards.
    for (const layout of layouts) {
      if (layout.redis === 'cluster') cluster ??= await startRedisCluster(3, { appendonly: true });
      const on =
        layout.redis === 'cluster' ? { redisUrl: cluster!.url, redisPids: cluster!.pids } : { redisUrl: redis.url, redisPids: [redis.pid] };
      const label = `${layout.redis}${layout.shards}`;
      const measured = await measure({ apis: layoutApis, workers: layoutWorkers, ...on, shards: layout.shards, label });
      layoutRows.push({ ...layout, row: measured.row, perMaster: measured.perRedisMsPerCommand, marginal: measured.perRedisMarginalMs });
    }
  } finally {
    await admin.end();
    await cluster?.stop();
    await redis.stop();
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(report(results, { flows, clients }));
  process.stdout.write(layoutReport(layoutRows, { apis: layoutApis, workers: layoutWorkers }));
  return 0;
}

const IDLE_MS = 5_000;

export interface Row {
  apis: number;
  workers: number;
  commandsPerSecond: number;
  p50: number;
  p99: number;
  work: PgWork;
  redisCpuMsPerCommand: number;
  redisCores: number;
  serviceCpuMsPerCommand: number;
  serviceCores: number;
  apiCpuMsPerCommand: number;
  workerCpuMsPerCommand: number;
}

/** CPU of the service's own processes (node: API and workers). */
function fleetCpuMs(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + processTreeCpuMs(pid), 0);
}

function report(results: Row[], o: { flows: number; clients: number }): string {
  const f = (n: number | undefined, d = 1) => (n === undefined ? 'n/a' : n.toFixed(d));
  const lines = [
    `### Scale-out: ${o.flows} link-delivery flows (${o.flows * 3} commands) per row, ${o.clients} concurrent HTTP clients`,
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB; ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '| API procs | worker procs | commands/s | p50 ms | p99 ms | service CPU (cores) | Postgres CPU (cores) | Redis CPU (cores) |',
    '|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.apis} | ${r.workers} | ${f(r.commandsPerSecond)} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.serviceCores, 2)} | ${f(r.work.cpuCores, 2)} | ${f(r.redisCores, 2)} |`,
    ),
    '',
    'Work per command (mean over the rows):',
    '',
  ];
  const mean = (pick: (r: (typeof results)[number]) => number | undefined) => {
    const xs = results.map(pick).filter((x): x is number => x !== undefined);
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined;
  };
  const pgCpu = mean((r) => r.work.cpuMsPerCommand);
  const redisCpu = mean((r) => r.redisCpuMsPerCommand);
  lines.push(
    '| measure | per command |',
    '|---|---|',
    `| Postgres statements | ${f(mean((r) => r.work.statementsPerCommand))} |`,
    `| Postgres transactions | ${f(mean((r) => r.work.xactsPerCommand))} |`,
    `| rows written (ins+upd+del) | ${f(mean((r) => r.work.tuplesPerCommand))} |`,
    `| WAL bytes | ${f(
      mean((r) => r.work.walBytesPerCommand),
      0,
    )} |`,
    `| Postgres server execution time, ms | ${f(
      mean((r) => r.work.serverExecMsPerCommand),
      3,
    )} |`,
    `| order-lock statement time (waits included), ms | ${f(
      mean((r) => r.work.lockStatementMsPerCommand),
      3,
    )} |`,
    `| Postgres CPU (all its processes), ms | ${f(pgCpu, 3)} |`,
    `| Redis CPU, ms | ${f(redisCpu, 3)} |`,
    `| service CPU (API + worker processes), ms | ${f(
      mean((r) => r.serviceCpuMsPerCommand),
      3,
    )} |`,
    `| of which API processes, ms | ${f(
      mean((r) => r.apiCpuMsPerCommand),
      3,
    )} |`,
    `| of which worker processes, ms | ${f(
      mean((r) => r.workerCpuMsPerCommand),
      3,
    )} |`,
    '',
    `Implied ceiling: ${f(pgCpu ? 1000 / pgCpu : undefined, 0)} commands/s per Postgres core, ${f(redisCpu ? 1000 / redisCpu : undefined, 0)} commands/s per Redis core (single-threaded).`,
    '',
  );
  return lines.join('\n');
}
