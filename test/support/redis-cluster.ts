import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../src/redis/private-server.ts';

export interface PrivateCluster {
  /** `redis+cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3`, as REDIS_URL takes it. */
  url: string;
  ports: number[];
  pids: number[];
  stop(): Promise<void>;
}

async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A free port whose cluster bus port (port + 10000) exists too: a node on a higher one will not start. */
async function clusterPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port <= 55_535) return port;
  }
}

/**
 * A real Redis Cluster of `masters` redis-server processes on free loopback ports, made with
 * `redis-cli --cluster create` (no replicas; AOF with `appendonly`, as the service's private Redis). stop() ends only these processes and removes their files.
 */
export async function startRedisCluster(masters = 3, opts: { appendonly?: boolean } = {}): Promise<PrivateCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fulfil-cluster-'));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i++) {
      const port = await clusterPort();
      const nodeDir = path.join(dir, String(port));
      mkdirSync(nodeDir);
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          nodeDir,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          '15000',
          '--appendonly',
          opts.appendonly ? 'yes' : 'no',
          '--save',
          '',
          '--maxmemory-policy',
          'noeviction',
          '--daemonize',
          'no',
        ],
        { stdio: 'ignore' },
      );
      children.push(child);
      ports.push(port);
    }
    for (const port of ports) {
      await until(`redis-server on ${port}`, async () => {
        const r = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        r.on('error', () => {}); // not listening yet: the connect() below rejects, that is enough
        try {
          await r.connect();
          return (await r.ping()) === 'PONG';
        } finally {
          r.disconnect();
        }
      });
    }
    const created = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    // Every node must agree the cluster is up before a client relies on the slot map.
    for (const port of ports) {
      await until(`cluster_state:ok on ${port}`, async () => {
        const r = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0 });
        try {
          return (await r.cluster('INFO')).includes('cluster_state:ok');
        } finally {
          r.disconnect();
        }
      });
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    pids: children.map((c) => c.pid!),
    stop,
  };
}

export interface MasterLoad {
  port: number;
  /** Sum of `calls` over every command in INFO commandstats. */
  calls: number;
  /** used_cpu_sys + used_cpu_user of INFO cpu, in seconds. */
  cpuSeconds: number;
  /** Calls by command name. */
  byCommand: Record<string, number>;
}

/** What each node has served so far; take two readings and subtract (loadBetween). */
export async function masterLoads(ports: readonly number[]): Promise<MasterLoad[]> {
  return Promise.all(
    ports.map(async (port) => {
      const r = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
      try {
        const stats = await r.info('commandstats');
        const byCommand = Object.fromEntries([...stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
        const calls = Object.values(byCommand).reduce((sum, n) => sum + n, 0);
        const cpu = await r.info('cpu');
        const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(cpu)?.[1] ?? 0);
        return { port, calls, byCommand, cpuSeconds: field('used_cpu_sys') + field('used_cpu_user') };
      } finally {
        r.disconnect();
      }
    }),
  );
}

/** Each master's share of the calls and CPU between two readings (fractions of the total). */
export function loadBetween(before: MasterLoad[], after: MasterLoad[]) {
  const calls = after.map((a, i) => a.calls - before[i]!.calls);
  const cpu = after.map((a, i) => a.cpuSeconds - before[i]!.cpuSeconds);
  const totalCalls = calls.reduce((s, n) => s + n, 0);
  const totalCpu = cpu.reduce((s, n) => s + n, 0);
  return after.map((a, i) => ({
    port: a.port,
    calls: calls[i]!,
    cpuSeconds: cpu[i]!,
    callShare: calls[i]! / totalCalls,
    byCommand: Object.fromEntries(
      Object.entries(a.byCommand)
        .map(([name, n]) => [name, n - (before[i]!.byCommand[name] ?? 0)] as const)
        .filter(([, n]) => n > 0),
    ),
    cpuShare: totalCpu > 0 ? cpu[i]! / totalCpu : 0,
  }));
}
