import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/fulfil.mjs');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Resident memory of a process in bytes, from /proc (0 where there is none). */
export function rssOf(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU time (user + system) a process has used, in ms, from /proc (0 where there is none). */
export function cpuMsOf(pid: number): number {
  try {
    // Fields after the command name: state is 3rd, utime 14th, stime 15th (clock ticks, 100 a second on Linux).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

export interface ServiceProcess {
  child: ChildProcess;
  role: string;
  stop(): Promise<void>;
}

/**
 * The environment a bench gives the service: its own database, Redis prefix, data directory and
 * key; quiet logs; a rate limit too high to refuse but still checked on every call.
 */
export function benchServiceEnv(o: {
  databaseUrl: string;
  redisUrl: string;
  dataDir: string;
  key: string;
  prefix: string;
}): Record<string, string> {
  return {
    DATABASE_URL: o.databaseUrl,
    REDIS_URL: o.redisUrl,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATA_DIR: o.dataDir,
    FULFIL_SECRET_KEY: o.key,
    QUEUE_PREFIX: o.prefix,
    RATE_LIMIT_PER_MINUTE: String(1e9),
    NODE_ENV: 'development',
  };
}

/** `fulfil start` as an operator runs it, in its own process; resolves once it serves. */
export async function startServiceProcess(
  role: 'all' | 'api' | 'worker' | 'webhooks',
  env: Record<string, string>,
  readyUrl?: string,
  /** Another checkout's bin/fulfil.mjs (the bench's --compare), this one's by default. */
  bin = BIN,
  /** Node's flags; BENCH_NODE_FLAGS by default. */
  nodeFlags = process.env.BENCH_NODE_FLAGS,
): Promise<ServiceProcess> {
  const args = ['start', ...(role === 'all' ? [] : ['--role', role])];
  // BENCH_NODE_FLAGS profiles the service alone, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const flags = nodeFlags?.split(' ').filter(Boolean) ?? [];
  // BENCH_STDOUT_DIR keeps each process's stdout (e.g. with `--trace-gc`) as <role>-<pid>.log there.
  const outDir = process.env.BENCH_STDOUT_DIR;
  const out = outDir ? openSync(path.join(outDir, `${role}-${process.pid}-${Date.now()}.log`), 'w') : 'ignore';
  const child = spawn(process.execPath, [...flags, bin, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', out, 'pipe'] });
  if (typeof out === 'number') closeSync(out);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (readyUrl) {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`fulfil start ${args.join(' ')} exited: ${stderr}`);
      const ok = await fetch(readyUrl).then(
        (r) => r.ok,
        () => false,
      );
      // On a shared machine another process may have taken the port between freePort() and
      // the bind: then the answer came from it, and this child exits on EADDRINUSE.
      if (ok) {
        await new Promise((r) => setTimeout(r, 500));
        if (child.exitCode !== null) throw new Error(`fulfil start ${args.join(' ')} exited: ${stderr}`);
        break;
      }
      if (Date.now() > deadline) throw new Error(`fulfil start ${args.join(' ')} not ready in 60 s: ${stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } else {
    // A worker has no port: give it time to connect and register its workers.
    await new Promise((r) => setTimeout(r, 4_000));
    if (child.exitCode !== null) throw new Error(`fulfil start ${args.join(' ')} exited: ${stderr}`);
  }
  return {
    child,
    role,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
