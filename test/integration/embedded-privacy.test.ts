import { type ChildProcess, execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/redis/private-server.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { startBuiltService, stopBuiltService } from '../support/built-service.ts';
import { ensureIntruder, nodeAsIntruder } from '../support/os-user.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/fulfil.mjs');
const FIXTURE = path.resolve(import.meta.dirname, '../../fixtures/demo.json');

const mode = (p: string) => statSync(p).mode & 0o777;

function modesUnder(dir: string, out: Map<string, number> = new Map()): Map<string, number> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    out.set(p, mode(p));
    if (e.isDirectory()) modesUnder(p, out);
  }
  return out;
}

/**
 * The embedded mode as a second local user meets it: `fulfil start` on PGlite with a DATA_DIR
 * long enough that the CLI socket cannot sit next to the database, run from the built bin/.
 */
describe('embedded data and its CLI socket are the service user’s only', () => {
  let service: ChildProcess;
  let root: string;
  let dataDir: string;
  const prefix = testPrefix();
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    ensureIntruder();
    root = mkdtempSync(path.join(tmpdir(), 'fulfil-privacy-'));
    // A DATA_DIR an older version (or a copy) left open to everyone: it must be repaired.
    dataDir = path.join(root, `data-${'d'.repeat(90)}`);
    mkdirSync(dataDir, { mode: 0o755 });
    writeFileSync(path.join(dataDir, 'secret.key'), `${'ab'.repeat(32)}\n`, { mode: 0o644 });
    chmodSync(root, 0o755);
    chmodSync(dataDir, 0o755);
    chmodSync(path.join(dataDir, 'secret.key'), 0o644);
    env = {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'info',
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
    };
    service = (await startBuiltService(env, ['--seed', FIXTURE])).child;
  }, 60_000);
  afterAll(async () => {
    if (service && service.exitCode === null) await stopBuiltService(service);
    await dropPrefix(prefix);
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('serves the CLI socket on a Unix socket in a 0700 directory, never on TCP, and another user cannot connect', async () => {
    const address = JSON.parse(readFileSync(path.join(dataDir, 'pglite.socket.json'), 'utf8')) as Record<string, unknown>;
    // The attacker is handed the address (as if guessed or scanned) and tries to speak Postgres.
    const attempt = nodeAsIntruder(`
      import net from 'node:net';
      const a = ${JSON.stringify(address)};
      const s = a.path ? net.connect(a.path) : net.connect(a.port, a.host);
      s.on('connect', () => { console.log('connected'); s.destroy(); });
      s.on('error', (e) => console.log('refused', e.code));
    `);
    expect(attempt).toMatch(/^refused (EACCES|ENOENT)/);
    expect(address).not.toHaveProperty('port');
    const socketPath = address.path as string;
    expect(socketPath.length).toBeLessThanOrEqual(100);
    expect(mode(path.dirname(socketPath))).toBe(0o700);

    // The service's own user still gets in, through that socket.
    const { stdout } = await run(process.execPath, [BIN, 'credentials', 'list'], { env, timeout: 60_000 });
    expect(stdout).toContain('DNxril3RavGD5MfvJ7NScUykT8C8UBkk');
  });

  it('keeps DATA_DIR 0700 while running: another user can neither list it nor read the WAL', () => {
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(path.join(dataDir, 'secret.key'))).toBe(0o600);
    const wal = readdirSync(path.join(dataDir, 'pglite', 'pg_wal')).find((f) => /^[0-9A-F]{24}$/.test(f))!;
    const out = nodeAsIntruder(`
      import { readdirSync, readFileSync } from 'node:fs';
      for (const f of [() => readdirSync(${JSON.stringify(dataDir)}), () => readFileSync(${JSON.stringify(path.join(dataDir, 'pglite', 'pg_wal', wal))})]) {
        try { f(); console.log('read'); } catch (e) { console.log(e.code); }
      }
    `);
    expect(out.split('\n')).toEqual(['EACCES', 'EACCES']);
  });

  it('leaves every directory 0700 and every file 0600 when it stops, and removes its socket directory', async () => {
    const address = JSON.parse(readFileSync(path.join(dataDir, 'pglite.socket.json'), 'utf8')) as { path: string };
    await stopBuiltService(service);
    const modes = modesUnder(dataDir);
    expect(modes.size).toBeGreaterThan(100);
    const loose = [...modes].filter(([p, m]) => m !== (statSync(p).isDirectory() ? 0o700 : 0o600));
    expect(loose).toEqual([]);
    expect(existsSync(path.dirname(address.path))).toBe(false);
  }, 60_000);
});
