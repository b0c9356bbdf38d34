import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type postgres from 'postgres';
import { recreateBenchDatabase } from '../bench-database.ts';
import { BackendCpu } from './backend-cpu.ts';

/**
 * The design cap (a prototype of the command path kept outside this repository, as short as the
 * architecture allows) run in the same benchmark as the service, so that their ratio is measured
 * under the same load on a shared machine. Its directory comes from `--design-cap <dir>` or
 * DESIGN_CAP_DIR; it is copied to a temporary directory and run there with this project's
 * node_modules (it needs bullmq, fastify and postgres, which the service has).
 */

/** One phase of the cap: 1 caller for 5 s, then `callers` for the given time. */
export interface CapRow {
  callers: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  cpu: CpuPerCommand;
}

/** CPU milliseconds per command by part: the Node process(es), Postgres, Redis. */
export interface CpuPerCommand {
  node: number;
  postgres: number;
  redis: number;
}

/** The cap's `cpu.mjs`: /proc and Redis INFO meters, the same for the service and the cap. */
export interface CpuMeters {
  processCpu(pid: number): number;
  treeCpu(pids: number[]): number;
  redisCpu(port: number): number;
  postmasterOf(sql: postgres.Sql): Promise<number>;
}

export const MISSING_CAP = [
  'The commands benchmark runs the design cap in the same run and needs its directory:',
  '  DESIGN_CAP_DIR=/path/to/design-cap npm run bench -- commands',
  '  npm run bench -- commands --design-cap /path/to/design-cap',
  '(the directory holds design-cap.mjs, cpu.mjs and schema.sql). Without the cap, run only',
  'the service phases: npm run bench -- commands --only statements,one,same,split,transaction,bullmq',
].join('\n');

/** Where the cap is, or undefined with the reason. */
export function findDesignCap(option: string | undefined): string | undefined {
  const dir = option ?? process.env.DESIGN_CAP_DIR;
  if (!dir) return undefined;
  for (const f of ['design-cap.mjs', 'cpu.mjs', 'schema.sql']) {
    if (!existsSync(path.join(dir, f))) throw new Error(`design cap at ${dir}: no ${f} there\n${MISSING_CAP}`);
  }
  return path.resolve(dir);
}

const PROJECT_MODULES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules');

/** A temporary copy of the cap, ready to run, with its CPU meters loaded. */
export async function prepareDesignCap(dir: string, benchUrl: string) {
  const copy = mkdtempSync(path.join(tmpdir(), 'fulfil-design-cap-'));
  cpSync(dir, copy, { recursive: true, filter: (src) => path.basename(src) !== 'node_modules' });
  symlinkSync(PROJECT_MODULES, path.join(copy, 'node_modules'), 'dir');
  const meters = (await import(pathToFileURL(path.join(copy, 'cpu.mjs')).href)) as CpuMeters;
  const url = new URL(benchUrl);
  url.pathname = '/fulfil_bench_design_cap';
  return {
    meters,
    /**
     * Resets the cap's tables, runs it at 1 and `callers` callers, and parses its two lines. Its
     * Postgres figure is replaced by the CPU of its own backends (backend-cpu.ts), measured as the
     * service's is; `admin` is a connection to another database of the same server.
     */
    async run(callers: number, seconds: number, redisPort: number, admin: postgres.Sql): Promise<CapRow[]> {
      await recreateBenchDatabase(url.toString());
      // psql, as the cap's README does: the file ends in VACUUM, which cannot share a simple query.
      execFileSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', url.toString(), '-f', path.join(copy, 'schema.sql')], { stdio: 'pipe' });
      const backends = new BackendCpu(admin, 'fulfil_bench_design_cap', meters.processCpu);
      backends.start();
      // The cap prints a line as each phase ends: the backends' CPU is read at each line.
      const marks: Array<Promise<number>> = [backends.total()];
      const out = await runNode(
        path.join(copy, 'design-cap.mjs'),
        [String(callers)],
        {
          PGPORT: url.port || '5432',
          PGDATABASE: 'fulfil_bench_design_cap',
          REDIS_PORT: String(redisPort),
          DUR: String(seconds * 1000),
          CAP_QUEUE: `bench${process.pid}`,
        },
        (line) => void (parseCapLine(line) && marks.push(backends.total())),
      );
      await backends.stop();
      const at = await Promise.all(marks);
      const rows = out.split('\n').flatMap((line) => parseCapLine(line) ?? []);
      if (rows.length === 0) throw new Error(`the design cap printed no result:\n${out}`);
      return rows.map((r, i) => {
        const spent = at[i + 1] !== undefined ? at[i + 1]! - at[i]! : NaN;
        return { ...r, cpu: { ...r.cpu, postgres: (spent * 1000) / Math.max(1, Math.round(r.perSecond * (i === 0 ? 5 : seconds))) } };
      });
    },
    close: () => rmSync(copy, { recursive: true, force: true }),
  };
}

/** `design cap: 32 callers → 610 commands/s, p50 …, p99 … ms, errors 0; node 1.10 · postgres 0.80 · redis 0.30 ms CPU/command` */
export function parseCapLine(line: string): CapRow | undefined {
  const m =
    /(\d+) callers → ([\d.]+) commands\/s, p50 ([\d.]+) ms, p99 ([\d.]+) ms, errors (\d+); node ([\d.]+) · postgres ([\d.]+) · redis ([\d.]+)/.exec(
      line,
    );
  if (!m) return undefined;
  const n = m.slice(1).map(Number) as [number, number, number, number, number, number, number, number];
  return { callers: n[0], perSecond: n[1], p50: n[2], p99: n[3], errors: n[4], cpu: { node: n[5], postgres: n[6], redis: n[7] } };
}

function runNode(file: string, args: string[], env: Record<string, string>, onLine: (line: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { cwd: path.dirname(file), env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    // Decoded as a stream: a chunk may end inside a character (the cap's lines hold → and ·),
    // which decoded chunk by chunk broke the line and lost its row.
    child.stdout.setEncoding('utf8');
    let partial = '';
    child.stdout.on('data', (text: string) => {
      out += text;
      const lines = (partial + text).split('\n');
      partial = lines.pop()!;
      for (const line of lines) onLine(line);
    });
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`design cap exited ${code}: ${err}${out}`))));
  });
}
