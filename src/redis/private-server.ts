import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { makePrivateDir, restrictUmask } from '../private-dir.ts';

export interface PrivateRedis {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function redisServerBinary(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const bin = found.stdout.trim();
  return found.status === 0 && bin ? bin : undefined;
}

function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null) return reject(new Error(`redis-server exited with code ${child.exitCode}`));
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error(`redis-server did not listen on ${port} within ${timeoutMs} ms`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

/**
 * Starts a redis-server child on a free loopback port with its data (AOF on, so queued jobs
 * survive a restart) under `dir`. BullMQ needs `noeviction`: an evicted job key is a lost command.
 *
 * Loopback is reachable by every local user, so it wants a password, generated per start. It
 * goes to redis-server in a config file (mode 0600), never on its command line, which `ps` shows
 * to everyone; the URL with it goes to `dir/url` (0600) for the CLI. The directory is 0700 and
 * the AOF, written under this process's umask, 0600.
 */
export async function startPrivateRedis(dir: string, binary = redisServerBinary()): Promise<PrivateRedis> {
  if (!binary) throw new Error('redis-server not found on PATH');
  const dataDir = path.resolve(dir);
  restrictUmask();
  makePrivateDir(dataDir, { recursive: true });
  const port = await freePort();
  const password = randomBytes(24).toString('hex');
  const configFile = path.join(dataDir, 'redis.conf');
  const settings = [
    `port ${port}`,
    'bind 127.0.0.1',
    `dir "${dataDir.replace(/["\\]/g, '\\$&')}"`,
    `requirepass ${password}`,
    'appendonly yes',
    'save ""',
    'maxmemory-policy noeviction',
    'daemonize no',
  ];
  writeFileSync(configFile, `${settings.join('\n')}\n`, { mode: 0o600 });
  // Its own process group (detached): Ctrl-C at the terminal signals the foreground group, and
  // the service must stop its workers and relay while Redis still answers, then stop Redis last
  // (src/service.ts's 'private redis' phase); a Redis gone first turns shutdown into reconnects.
  const child = spawn(binary, [configFile], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    await waitForPort(port, child, 10_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}${stderr ? `: ${stderr.trim()}` : ''}`, { cause: err });
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Out of the terminal's reach, it must not outlive a service that exits without stopping it
  // (a second Ctrl-C, process.exit on a fatal error): it is told to stop as the process ends.
  const onExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  process.once('exit', onExit);
  const url = `redis://:${password}@127.0.0.1:${port}`;
  // Lets the CLI (inventory import, jobs) find the Redis that a running `npm start` started.
  const urlFile = path.join(dataDir, 'url');
  writeFileSync(urlFile, `${url}\n`, { mode: 0o600 });
  return {
    url,
    pid: child.pid!,
    async stop() {
      process.removeListener('exit', onExit);
      rmSync(urlFile, { force: true });
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
