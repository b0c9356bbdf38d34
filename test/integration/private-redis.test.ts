import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRedis, type ResolvedRedis } from '../../src/redis/resolve.ts';
import { asIntruder, ensureIntruder } from '../support/os-user.ts';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/fulfil.mjs');
const mode = (p: string) => statSync(p).mode & 0o777;

/** The private redis-server `fulfil start` runs when no Redis is configured, against a second local user. */
describe('the private Redis', () => {
  let dataDir: string;
  let resolved: ResolvedRedis;

  beforeAll(async () => {
    ensureIntruder();
    dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-private-redis-'));
    resolved = await resolveRedis({ dataDir, probeLocal: false });
    expect(resolved.source).toBe('private');
  });
  afterAll(async () => {
    await resolved?.private?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses another local user: a password is required, and it is nowhere that user can read', async () => {
    const port = new URL(resolved.url).port;
    const ping = asIntruder('redis-cli', ['-h', '127.0.0.1', '-p', port, 'ping']);
    expect(`${ping.stdout}${ping.stderr}`).toMatch(/NOAUTH/);
    const enqueue = asIntruder('redis-cli', ['-h', '127.0.0.1', '-p', port, 'lpush', 'fulfil:orders.accept:wait', 'x']);
    expect(`${enqueue.stdout}${enqueue.stderr}`).toMatch(/NOAUTH/);
    // Not on redis-server's command line either (ps shows that to everyone).
    const ps = asIntruder('ps', ['-o', 'args=', '-p', String(resolved.private!.pid)]);
    expect(ps.stdout).not.toContain(new URL(resolved.url).password);
    const read = asIntruder('cat', [path.join(dataDir, 'redis', 'url')]);
    expect(read.status).not.toBe(0);
  });

  it('keeps its directory 0700 and its files (AOF, config, URL) 0600', async () => {
    const client = new Redis(resolved.url);
    await client.set('written', '1'); // makes the AOF exist
    client.disconnect();
    const dir = path.join(dataDir, 'redis');
    expect(mode(dir)).toBe(0o700);
    const entries = readdirSync(dir, { recursive: true, withFileTypes: true });
    expect(entries.length).toBeGreaterThan(2);
    for (const e of entries) {
      const p = path.join(e.parentPath, e.name);
      expect([p, mode(p)]).toEqual([p, e.isDirectory() ? 0o700 : 0o600]);
    }
  });

  it('is found, password included, by the CLI of the same DATA_DIR (even with another Redis on 6379)', async () => {
    expect(readFileSync(path.join(dataDir, 'redis', 'url'), 'utf8')).toContain(new URL(resolved.url).password);
    const { stdout } = await run(process.execPath, [BIN, 'jobs', 'list'], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      timeout: 60_000,
    });
    expect(stdout).toMatch(/running private/);
    expect(stdout).not.toContain(new URL(resolved.url).password);
  });
});
