import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/process-alive.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/fulfil.mjs');

/** The pid of the redis-server listening on `port` (it shows `redis-server 127.0.0.1:<port>` to ps). */
function redisServerOn(port: string): number | undefined {
  const ps = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  const line = ps.stdout.split('\n').find((l) => l.includes('redis-server') && l.includes(`127.0.0.1:${port}`));
  return line ? Number(line.trim().split(/\s+/)[0]) : undefined;
}

/**
 * Ctrl-C at a terminal: SIGINT to the whole foreground process group. `fulfil start` with its
 * private redis-server (REDIS_PRIVATE=true: not the Redis on 6379) must stop its workers, relay and
 * queues while Redis still answers and stop Redis last, so the signal must not reach redis-server.
 */
describe('Ctrl-C on `fulfil start` with a private redis-server', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-ctrl-c-'));
  let redisPid: number | undefined;
  let servicePid: number | undefined;
  afterAll(() => {
    // A failed run leaves nothing behind: the service's group, then its redis-server.
    if (servicePid && isProcessAlive(servicePid)) process.kill(-servicePid, 'SIGKILL');
    if (redisPid && isProcessAlive(redisPid)) process.kill(redisPid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops the service, then redis-server, with no reconnect warning or error', async () => {
    // Its own process group, as a shell gives a foreground job: the group is what Ctrl-C signals.
    const child = spawn(process.execPath, [BIN, 'start'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        REDIS_URL: undefined,
        DATABASE_URL: undefined,
        REDIS_PRIVATE: 'true',
        DATA_DIR: dataDir,
        PORT: '0',
        LOG_LEVEL: 'info',
      },
    });
    servicePid = child.pid;
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await expect.poll(() => out.includes('"fulfil started"'), { timeout: 60_000, interval: 200 }).toBe(true);
    const port = /"redis":"redis:\/\/[^"]*@127\.0\.0\.1:(\d+)"/.exec(out)?.[1];
    expect(port, out).toBeDefined();
    redisPid = redisServerOn(port!);
    expect(redisPid, out).toBeDefined();
    // The private redis-server is outside the service's process group: the terminal's signal misses it.
    const group = (pid: number) => Number(spawnSync('ps', ['-o', 'pgid=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim());
    expect(group(redisPid!)).not.toBe(group(child.pid!));

    process.kill(-child.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    const lines = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string });
    // pino levels: 40 warn, 50 error. Redis stopped first would show as reconnect warnings and an error.
    expect(lines.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([]);
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
    expect(isProcessAlive(redisPid!)).toBe(false);
  }, 120_000);
});
