import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/redis/private-server.ts';

/**
 * Private PostgreSQL servers made from the installed binaries, on free loopback ports, for tests
 * and benchmarks that need a server of their own (a streaming replica, server settings the
 * shared one lacks). Only servers started here are stopped here, by their own data directory.
 */
export interface PrivatePostgres {
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}

/** The newest /usr/lib/postgresql/<v>/bin with initdb, else the directory pg_config names. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(root, versions[0], 'bin');
  }
  const found = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const dir = found.status === 0 ? found.stdout.trim() : '';
  return dir && existsSync(path.join(dir, 'initdb')) ? dir : undefined;
}

// initdb and postgres refuse to run as root: as root, run them as the postgres OS user.
const asRoot = process.getuid?.() === 0;
function osUserIds(): { uid: number; gid: number } | undefined {
  if (!asRoot) return undefined;
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0) throw new Error('running as root needs a "postgres" OS user to run a private PostgreSQL');
  return { uid: Number(uid.stdout), gid: Number(gid.stdout) };
}

function run(bin: string, tool: string, args: string[], timeout = 120_000): SpawnSyncReturns<string> {
  const exe = path.join(bin, tool);
  const result = asRoot
    ? spawnSync('runuser', ['-u', 'postgres', '--', exe, ...args], { encoding: 'utf8', timeout })
    : spawnSync(exe, args, { encoding: 'utf8', timeout });
  if (result.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed: ${result.stdout}${result.stderr}${result.error ?? ''}`);
  return result;
}

function privateDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const ids = osUserIds();
  if (ids) chownSync(dir, ids.uid, ids.gid);
  chmodSync(dir, 0o700);
  return dir;
}

async function startServer(bin: string, dataDir: string, settings: Record<string, string>): Promise<PrivatePostgres> {
  const port = await freePort();
  const options = Object.entries({
    port: String(port),
    listen_addresses: '127.0.0.1',
    unix_socket_directories: dataDir,
    ...settings,
  })
    .map(([k, v]) => `-c ${k}=${v}`)
    .join(' ');
  run(bin, 'pg_ctl', ['-D', dataDir, '-o', options, '-l', path.join(dataDir, 'server.log'), '-w', '-t', '60', 'start']);
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        run(bin, 'pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
      } finally {
        rmSync(path.dirname(dataDir), { recursive: true, force: true });
      }
    },
  };
}

/** A fresh primary (trust auth for user postgres, WAL for replicas) with any extra server settings. */
export async function startPrivatePrimary(settings: Record<string, string> = {}, bin = postgresBinDir()): Promise<PrivatePostgres> {
  if (!bin) throw new Error('PostgreSQL server binaries (initdb, pg_ctl) not found; install postgresql');
  const dataDir = path.join(privateDir('fulfil-private-pg-'), 'data');
  run(bin, 'initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  return startServer(bin, dataDir, { wal_level: 'replica', max_wal_senders: '5', ...settings });
}

/** A hot standby streaming from `primary`: pg_basebackup -R of it, started on its own port. */
export async function startStreamingReplica(primary: PrivatePostgres, bin = postgresBinDir()): Promise<PrivatePostgres> {
  if (!bin) throw new Error('PostgreSQL server binaries (pg_basebackup, pg_ctl) not found; install postgresql');
  const dataDir = path.join(privateDir('fulfil-private-pg-replica-'), 'data');
  run(bin, 'pg_basebackup', [
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    dataDir,
    '-R',
    '-X',
    'stream',
    '-c',
    'fast',
    '--no-sync',
  ]);
  return startServer(bin, dataDir, { hot_standby: 'on' });
}
