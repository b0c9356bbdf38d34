import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { SecretBox } from '../src/auth/secret-box.ts';
import { openDatabase } from '../src/db/client.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { seedDatabase } from '../src/domain/seed.ts';
import { fixtureSchema } from '../src/domain/fixture.ts';
import { startPrivateRedis } from '../src/redis/private-server.ts';
import { startPrivatePrimary } from '../test/support/private-postgres.ts';
import { recreateBenchDatabase } from './bench-database.ts';
import { pgSnapshot, pgWork, processTreeCpuMs, walByRelation } from './postgres-work.ts';
import { BENCH_CREDENTIAL, benchFixture } from './scale-flows.ts';
import { startFleet } from './scale-processes.ts';
import { layoutReport, parseLayouts, type LayoutRow } from './scale-layouts.ts';
import { defaultLoadProcesses, startLoad } from './scale-load.ts';
import { startProfile } from './scale-profile.ts';
import { cpuSnapshot, cpuUse, type ProcessGroups } from './scale-profile-procs.ts';
import { profileReport, type ProfiledRun } from './scale-profile-report.ts';
import { report, type Row } from './scale-report.ts';
import { startRedisCluster, type PrivateCluster } from '../test/support/redis-cluster.ts';

/**
 * `npm run bench -- scale`: the command flow (signed HTTP accept → update → complete, each call
 * synchronous through the API, Redis, a worker and Postgres) against separate `--role api` and
 * `--role worker` processes, for several process counts. Postgres and Redis are private servers
 * started here (pg_stat_statements loaded, fsync on; Redis with AOF as the service starts it),
 * so their CPU and Postgres's WAL, statements and lock time per command can be measured. The
 * clients run in load processes of their own (--load-procs), so that the bench is not the
 * bound; with --profile on (the default) each api×workers row gets a profile of its timed
 * phase (scale-profile.ts): where Postgres, Redis and the service processes spend and wait.
 */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      flows: { type: 'string', default: '400' },
      // untimed flows before each row's timed ones; default 1,500 per process of the larger role
      'warmup-flows': { type: 'string', default: '' },
      clients: { type: 'string', default: '32' },
      // load-generating processes sharing the clients; default one per 128 clients
      'load-procs': { type: 'string', default: '' },
      // api×workers per run
      configs: { type: 'string', default: '1x1,1x2,1x4,2x2,2x4' },
      // Redis layouts compared (docs/SCALING.md): `single:N` or `cluster:N`, N = COMMAND_SHARDS
      redis: { type: 'string', default: 'single:1,cluster:1,cluster:3' },
      // api×workers of the Redis layout rows
      'redis-config': { type: 'string', default: '1x2' },
      // samplers during each api×workers row's timed phase (`off`: none)
      profile: { type: 'string', default: 'on' },
      // print each api×workers row's WAL by relation and record type (pg_walinspect)
      'wal-detail': { type: 'boolean', default: false },
    },
  });
  const flows = Number(values.flows);
  const clients = Number(values.clients);
  const loadProcesses = values['load-procs'] ? Number(values['load-procs']) : defaultLoadProcesses(clients);
  const configs = values.configs
    .split(',')
    .filter(Boolean)
    .map((c) => c.split('x').map(Number) as [number, number]);
  // A fresh process compiles its hot code while it serves: about a quarter of its CPU per command
  // over its first few thousand commands (docs/BENCHMARKS.md, "Warm and cold"). The timed phase
  // measures processes past that, so each gets about 4,500 commands first.
  const warmupFor = (apis: number, workers: number) =>
    values['warmup-flows'] ? Number(values['warmup-flows']) : Math.max(clients * 2, 1_500 * Math.max(apis, workers));

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
  const profiles: ProfiledRun[] = [];
  const layoutRows: LayoutRow[] = [];
  let cluster: PrivateCluster | undefined;
  const measure = async (o: {
    apis: number;
    workers: number;
    redisUrl: string;
    redisPids: number[];
    shards: number;
    label: string;
    profile: boolean;
  }) => {
    const url = pg.url.replace(/\/postgres$/, '/fulfil_bench_scale');
    const warmup = warmupFor(o.apis, o.workers);
    const key = randomBytes(32).toString('hex');
    const queuePrefix = `scale${o.label}`;
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
        QUEUE_PREFIX: queuePrefix,
        LOG_LEVEL: 'warn',
        FULFIL_SECRET_KEY: key,
        RATE_LIMIT_PER_MINUTE: String(1e9),
        // Every client comes from 127.0.0.1: the per-address share of the connection limit would refuse most of them.
        HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
        HTTP_MAX_CONNECTIONS: String(Math.max(1_000, 2 * clients)),
        DATA_DIR: path.join(dataDir, o.label),
      },
    });
    const load = await startLoad({ procs: loadProcesses, clients, apiUrls: fleet.apiUrls, credential: BENCH_CREDENTIAL }).catch(
      async (err: unknown) => {
        await fleet.stop();
        throw err;
      },
    );
    try {
      await load.run([flows + 1, flows + warmup]);
      // Redis's CPU with the fleet idle (blocking reads, timers): per master, what is not per command.
      const idleStart = o.redisPids.map((pid) => processTreeCpuMs(pid));
      await new Promise((r) => setTimeout(r, IDLE_MS));
      const idleMsPerSecond = o.redisPids.map((pid, i) => ((processTreeCpuMs(pid) - idleStart[i]!) * 1000) / IDLE_MS);
      const groups: ProcessGroups = {
        api: fleet.apiPids,
        worker: fleet.workerPids,
        postgres: [postmasterPid],
        redis: o.redisPids,
        load: load.pids,
      };
      const profiler = o.profile
        ? await startProfile({
            adminUrl: pg.url,
            databaseUrl: url,
            database: 'fulfil_bench_scale',
            redisUrl: o.redisUrl,
            queuePrefix,
            apiMetricsUrls: fleet.apiUrls.map((u) => `${u}/metrics`),
            workerMetricsUrls: fleet.workerMetricsUrls,
          })
        : undefined;
      const before = await pgSnapshot(admin, 'fulfil_bench_scale', postmasterPid);
      const cpuBefore = cpuSnapshot(groups);
      const run = await load.run([1, flows]);
      const cpu = cpuUse(groups, cpuBefore, cpuSnapshot(groups));
      const after = await pgSnapshot(admin, 'fulfil_bench_scale', postmasterPid);
      if (values['wal-detail']) {
        const shares = await walByRelation(admin, url, before, after, flows * 3);
        const total = shares.reduce((n, s) => n + s.bytesPerCommand, 0);
        process.stdout.write(
          `\n### WAL by relation, ${o.label} (${total.toFixed(0)} bytes a command)\n\n| relation | bytes a command | share | full-page images | records a command, by type |\n|---|---|---|---|---|\n` +
            shares
              .map(
                (s) =>
                  `| ${s.relation} | ${s.bytesPerCommand.toFixed(0)} | ${((100 * s.bytesPerCommand) / total).toFixed(1)} % | ${s.fpiBytesPerCommand.toFixed(0)} | ${s.records} |`,
              )
              .join('\n') +
            '\n',
        );
      }
      const profile = await profiler?.stop();
      const msOf = (cores: number) => cores * cpu.seconds * 1000;
      const perRedisMs = cpu.groups.redis.perProcess.map(msOf);
      const apiMs = msOf(cpu.groups.api.cores);
      const workerMs = msOf(cpu.groups.worker.cores);
      const commands = flows * 3;
      process.stderr.write(`${o.label}: ${(commands / run.seconds).toFixed(0)} commands/s, p99 ${run.p99.toFixed(0)} ms\n`);
      if (o.profile) profiles.push({ label: o.label, commands, clients, load: run, cpu, ...(profile ? { profile } : {}) });
      return {
        row: {
          apis: o.apis,
          workers: o.workers,
          commandsPerSecond: commands / run.seconds,
          p50: run.p50,
          p99: run.p99,
          work: await pgWork(admin, before, after, commands),
          redisCpuMsPerCommand: msOf(cpu.groups.redis.cores) / commands,
          redisCores: cpu.groups.redis.cores,
          serviceCpuMsPerCommand: (apiMs + workerMs) / commands,
          serviceCores: cpu.groups.api.cores + cpu.groups.worker.cores,
          apiCpuMsPerCommand: apiMs / commands,
          workerCpuMsPerCommand: workerMs / commands,
          clients,
          loadProcesses: load.pids.length,
          loadCores: cpu.groups.load.cores,
          machineCores: cpu.machine.busy,
        } satisfies Row,
        perRedisMsPerCommand: perRedisMs.map((ms) => ms / commands),
        perRedisMarginalMs: perRedisMs.map((ms, i) => Math.max(0, ms - idleMsPerSecond[i]! * cpu.seconds) / commands),
      };
    } finally {
      await load.stop();
      await fleet.stop();
    }
  };
  try {
    await admin`create extension if not exists pg_stat_statements`;
    for (const [apis, workers] of configs) {
      const label = `${apis}x${workers}`;
      const on = { redisUrl: redis.url, redisPids: [redis.pid], shards: 1 };
      results.push((await measure({ apis, workers, ...on, label, profile: values.profile !== 'off' })).row);
    }
    // The same flows on one Redis and on a three-master cluster, with one and with more shards.
    for (const layout of layouts) {
      if (layout.redis === 'cluster') cluster ??= await startRedisCluster(3, { appendonly: true });
      const on =
        layout.redis === 'cluster' ? { redisUrl: cluster!.url, redisPids: cluster!.pids } : { redisUrl: redis.url, redisPids: [redis.pid] };
      const label = `${layout.redis}${layout.shards}`;
      const measured = await measure({ apis: layoutApis, workers: layoutWorkers, ...on, shards: layout.shards, label, profile: false });
      layoutRows.push({ ...layout, row: measured.row, perMaster: measured.perRedisMsPerCommand, marginal: measured.perRedisMarginalMs });
    }
  } finally {
    await admin.end();
    await cluster?.stop();
    await redis.stop();
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(report(results, { flows }));
  process.stdout.write(layoutReport(layoutRows, { apis: layoutApis, workers: layoutWorkers }));
  for (const p of profiles) process.stdout.write(`\n${profileReport(p)}\n`);
  return 0;
}

const IDLE_MS = 5_000;
