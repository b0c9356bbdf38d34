import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SecretBox } from '../src/auth/secret-box.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { seedDatabase } from '../src/domain/seed.ts';
import { fixtureSchema } from '../src/domain/fixture.ts';
import { freePort } from '../src/redis/private-server.ts';
import { startRestartableRedis, type RestartableRedis } from './restartable-redis.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../test/support/restartable-postgres.ts';
import { startTcpProxy } from '../test/support/tcp-proxy.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'fulfil.mjs');

/** One `fulfil start --role …` child process; its log goes to a file of the cluster's dir. */
export interface ServiceProcess {
  role: 'api' | 'worker';
  name: string;
  child: ChildProcess;
  pid: number;
  /** Exit code or signal once it exited on its own (not by the cluster's stop). */
  crashed(): string | undefined;
  logFile: string;
}

export interface Cluster {
  dir: string;
  pg: PrivatePostgres;
  redis: RestartableRedis;
  /** The link between the API and Redis, when asked for (`apiRedisProxy`): it can lose Redis's replies. */
  apiRedisLink?: Awaited<ReturnType<typeof startTcpProxy>>;
  /** A second handle on the database, for seeding and for checking outcomes. */
  db: Database;
  secretKey: string;
  api: ServiceProcess;
  apiUrl: string;
  workers: ServiceProcess[];
  env: Record<string, string>;
  seed(fixture: unknown): Promise<void>;
  /** Starts a replacement worker (after a SIGKILL, say). */
  addWorker(): Promise<ServiceProcess>;
  /** SIGKILLs a process on purpose (a fault, not a crash). */
  kill(p: ServiceProcess): Promise<void>;
  /** Every process that exited without being asked to. */
  crashes(): Array<{ name: string; pid: number; how: string }>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  workers?: number;
  /** The API reaches Redis through a TCP proxy of the cluster's (`apiRedisLink`); the workers directly. */
  apiRedisProxy?: boolean;
  env?: Record<string, string>;
}

function spawnService(role: 'api' | 'worker', name: string, env: Record<string, string>, dir: string): ServiceProcess {
  const logFile = path.join(dir, `${name}.log`);
  const out: WriteStream = createWriteStream(logFile);
  const child = spawn(process.execPath, [BIN, 'start', '--role', role], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: ROOT,
  });
  child.stdout!.pipe(out, { end: false });
  child.stderr!.pipe(out, { end: false });
  let exit: string | undefined;
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) exit = signal ? `signal ${signal}` : `exit code ${code}`;
  });
  const proc: ServiceProcess & { markStopping(): void } = {
    role,
    name,
    child,
    pid: child.pid!,
    logFile,
    crashed: () => exit,
    markStopping: () => void (stopping = true),
  };
  return proc;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Private Postgres and Redis, one API process and N worker processes, all real. */
export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fulfil-chaos-'));
  const pg = await startPrivatePostgres();
  const redis = await startRestartableRedis(path.join(dir, 'redis'));
  const secretKey = randomBytes(32).toString('hex');
  const port = await freePort();
  const env: Record<string, string> = {
    DATABASE_URL: pg.url,
    REDIS_URL: redis.url,
    FULFIL_SECRET_KEY: secretKey,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: path.join(dir, 'data'),
    QUEUE_PREFIX: 'chaos',
    LOG_LEVEL: 'info',
    NODE_ENV: 'test',
    RATE_LIMIT_PER_MINUTE: '0',
    AUTH_FAILURES_PER_MINUTE: '0',
    RECOVERY_AFTER_MS: '3000',
    RECOVERY_EVERY_MS: '1000',
    JOB_BACKOFF_MS: '200',
    JOB_ATTEMPTS: '30',
    ...opts.env,
  };
  const db = await openDatabase({ databaseUrl: pg.url, maxConnections: 2 });
  const apiRedisLink = opts.apiRedisProxy ? await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(redis.url).port) }) : undefined;
  const procs: Array<ServiceProcess & { markStopping(): void }> = [];
  let workerCount = 0;
  const start = (role: 'api' | 'worker') => {
    const name = role === 'api' ? 'api' : `worker-${++workerCount}`;
    const own = role === 'api' && apiRedisLink ? { ...env, REDIS_URL: `redis://127.0.0.1:${apiRedisLink.port}` } : env;
    const p = spawnService(role, name, own, dir) as ServiceProcess & { markStopping(): void };
    procs.push(p);
    return p;
  };
  const apiUrl = `http://127.0.0.1:${port}`;
  const api = start('api');
  const workers = Array.from({ length: opts.workers ?? 2 }, () => start('worker'));
  const box = SecretBox.fromKey(secretKey);
  const cluster: Cluster = {
    dir,
    pg,
    redis,
    ...(apiRedisLink ? { apiRedisLink } : {}),
    db,
    secretKey,
    api,
    apiUrl,
    workers,
    env,
    seed: async (fixture) => void (await seedDatabase(db, fixtureSchema.parse(fixture), box)),
    async addWorker() {
      const w = start('worker');
      workers.push(w);
      await waitForLog(w, 'fulfil started', 30_000);
      return w;
    },
    async kill(p) {
      const own = procs.find((q) => q === p);
      if (!own || own.child.exitCode !== null || own.child.signalCode !== null) return;
      own.markStopping();
      const exited = new Promise((r) => own.child.once('exit', r));
      own.child.kill('SIGKILL');
      await exited;
      workers.splice(workers.indexOf(own), 1);
    },
    crashes: () => procs.filter((p) => p.crashed()).map((p) => ({ name: p.name, pid: p.pid, how: p.crashed()! })),
    async stop() {
      await Promise.all(
        procs.map(async (p) => {
          p.markStopping();
          if (p.child.exitCode !== null || p.child.signalCode !== null) return;
          const exited = new Promise((r) => p.child.once('exit', r));
          p.child.kill('SIGTERM');
          const timer = setTimeout(() => p.child.kill('SIGKILL'), 20_000);
          await exited;
          clearTimeout(timer);
        }),
      );
      await db.close().catch(() => {});
      await apiRedisLink?.close();
      await redis.stop().catch(() => {});
      await pg.destroy();
      if (!process.env.CHAOS_KEEP) rmSync(dir, { recursive: true, force: true });
    },
  };
  // An interrupted run (Ctrl-C) still stops what it started: pg_ctl's Postgres is not in our
  // process group and would outlive us.
  const onSignal = (signal: NodeJS.Signals) => {
    void cluster.stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const stop = cluster.stop;
  cluster.stop = async () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await stop();
  };
  try {
    await waitFor(async () => (await fetch(`${apiUrl}/readyz`)).ok, 60_000, 'api');
    await Promise.all(workers.map((w) => waitForLog(w, 'fulfil started', 60_000)));
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

/** Resolves once the process logged a line containing `text`. */
export async function waitForLog(p: ServiceProcess, text: string, timeoutMs: number): Promise<void> {
  const { readFileSync } = await import('node:fs');
  await waitFor(
    async () => {
      if (p.crashed()) throw new Error(`${p.name} exited: ${p.crashed()}`);
      return readFileSync(p.logFile, 'utf8').includes(text);
    },
    timeoutMs,
    p.name,
  );
}
