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

/**
 * A real Redis Cluster of `masters` redis-server processes on free loopback ports, made with
 * `redis-cli --cluster create` (no replicas). stop() ends only these processes and removes their files.
 */
export async function startRedisCluster(masters = 3): Promise<PrivateCluster> {
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
      const port = await freePort();
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
          'no',
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
