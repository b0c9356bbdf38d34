import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { openDatabase } from '../../src/db/client.ts';
import { migrateDatabase } from '../../src/db/migrate.ts';
import { freePort } from '../../src/redis/private-server.ts';
import { postgresBinDir } from './private-postgres.ts';

/**
 * A PostgreSQL cluster of its own (initdb in a temp dir, a free loopback port) that a fault test
 * may stop, kill and start again; the machine's own Postgres is never touched.
 */
export interface PrivatePostgres {
  port: number;
  /** URL of the migrated database `fulfil` in this cluster. */
  url: string;
  dir: string;
  /** The postmaster's pid, while it runs. */
  pid(): number | undefined;
  stop(mode?: 'fast' | 'immediate' | 'smart'): void;
  start(): void;
  /** SIGSTOP / SIGCONT of the postmaster and every backend: "Postgres does not answer". */
  freeze(): void;
  thaw(): void;
  destroy(): Promise<void>;
}

export { postgresBinDir };

/** initdb and pg_ctl refuse to run as root: there they run as the postgres user. */
function asOwner(bin: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
}

function run(bin: string, args: string[]): void {
  const [cmd, argv] = asOwner(bin, args);
  execFileSync(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries (initdb, pg_ctl) not found');
  const dir = mkdtempSync(path.join(tmpdir(), 'fulfil-pg-'));
  chmodSync(dir, 0o700);
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const data = path.join(dir, 'data');
  const port = await freePort();
  run(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const pgCtl = (...args: string[]) => run(path.join(bin, 'pg_ctl'), ['-D', data, ...args]);
  const start = () => pgCtl('-o', options, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start');
  start();
  const pid = () => {
    try {
      return Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return undefined;
    }
  };
  /** The postmaster and its children (backends, checkpointer…), all started by this helper. */
  const tree = (): number[] => {
    const root = pid();
    if (!root) return [];
    // children by their parent pid, read from /proc (no dependency on procps' pgrep)
    const children = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          return (
            Number(
              readFileSync(`/proc/${d}/stat`, 'utf8')
                .replace(/^.*\) /s, '')
                .split(' ')[1],
            ) === root
          );
        } catch {
          return false;
        }
      })
      .map(Number);
    return [root, ...children];
  };
  const base = `postgres://postgres@127.0.0.1:${port}`;
  const admin = postgres(`${base}/postgres`, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe('create database fulfil');
  } finally {
    await admin.end();
  }
  const url = `${base}/fulfil`;
  const database = await openDatabase({ databaseUrl: url, maxConnections: 1 });
  await migrateDatabase(database, url);
  await database.close();
  return {
    port,
    url,
    dir,
    pid,
    start,
    stop: (mode = 'fast') => pgCtl('-m', mode, '-w', '-t', '60', 'stop'),
    freeze: () => tree().forEach((p) => process.kill(p, 'SIGSTOP')),
    thaw: () => tree().forEach((p) => process.kill(p, 'SIGCONT')),
    async destroy() {
      const p = pid();
      if (p) {
        try {
          process.kill(p, 'SIGCONT');
          pgCtl('-m', 'immediate', '-w', 'stop');
        } catch {
          // already stopped
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
