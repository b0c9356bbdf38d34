import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import { freePort, redisServerBinary } from '../src/redis/private-server.ts';

/**
 * A private redis-server on a fixed port and data dir, so that it can be SIGKILLed and started
 * again from its AOF (appendfsync everysec, as docker-compose.yml runs it: up to a second of
 * writes may be lost, which is what the service's recovery from Postgres is for).
 */
export interface RestartableRedis {
  url: string;
  pid(): number | undefined;
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRestartableRedis(dir: string): Promise<RestartableRedis> {
  const binary = redisServerBinary();
  if (!binary) throw new Error('redis-server not found on PATH');
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      binary,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--appendonly',
        'yes',
        '--appendfsync',
        'everysec',
        '--save',
        '',
        '--maxmemory-policy',
        'noeviction',
        '--daemonize',
        'no',
      ],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 15_000;
    for (;;) {
      const ok = await new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1');
        s.once('connect', () => {
          s.destroy();
          resolve(true);
        });
        s.once('error', () => {
          s.destroy();
          resolve(false);
        });
      });
      if (ok) return;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('private redis-server did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const exit = async (signal: NodeJS.Signals) => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill(signal);
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: () => child?.pid,
    kill: () => exit('SIGKILL'),
    start,
    stop: () => exit('SIGTERM'),
  };
}
