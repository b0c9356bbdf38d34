import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { PROJECT_ROOT } from '../src/project-root.ts';

const execFileAsync = promisify(execFile);

/**
 * `npm run bench -- driver [--compare <checkout>] [--rounds 6] [--transactions 6000]`: the Node
 * CPU postgres.js spends per statement, this checkout's patched driver beside another checkout's
 * (or alone), each round in a fresh process of its own (bench/driver-child.mjs; two drivers in one
 * process slow each other's compiled code), the builds alternating. Each round runs transactions
 * shaped like the worker's (docs/COMMAND-PATH.md): BEGIN and a long CTE-like
 * statement in one round trip, then two statements and COMMIT in a second, 16 at once on 8
 * connections, all prepared. Postgres is needed (`BENCH_DRIVER_DATABASE_URL`, by default the
 * local `postgres` database); no table is touched.
 */
const CHILD = fileURLToPath(new URL('./driver-child.mjs', import.meta.url));

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      compare: { type: 'string' },
      rounds: { type: 'string', default: '6' },
      transactions: { type: 'string', default: '6000' },
    },
  });
  const url = process.env.BENCH_DRIVER_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const drivers = [
    { label: 'this checkout', dir: PROJECT_ROOT, perStatement: [] as number[] },
    ...(values.compare ? [{ label: values.compare, dir: path.resolve(values.compare), perStatement: [] as number[] }] : []),
  ];
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const d of round % 2 === 0 ? drivers : [...drivers].reverse()) {
      const { stdout } = await execFileAsync(process.execPath, [CHILD, d.dir, values.transactions, url]);
      d.perStatement.push(Number(stdout.trim()));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  process.stdout.write('| driver of | µs of Node CPU per statement, by round | median |\n|---|---|---:|\n');
  for (const d of drivers) {
    process.stdout.write(
      `| ${d.label} | ${d.perStatement.map((v) => v.toFixed(1)).join(' · ')} | ${median(d.perStatement).toFixed(1)} |\n`,
    );
  }
  if (drivers.length === 2) {
    const ratios = drivers[0]!.perStatement.map((v, i) => v / drivers[1]!.perStatement[i]!);
    process.stdout.write(
      `\nthis checkout ÷ the other, round by round: ${ratios.map((r) => `${r.toFixed(2)} ×`).join(' · ')}; median ${median(ratios).toFixed(2)} ×\n`,
    );
  }
  return 0;
}
