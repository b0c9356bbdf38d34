import { CAP_COMMAND } from './cap-command.ts';
import type { CapRow, CpuPerCommand } from './design-cap.ts';
import type { Summary } from './load.ts';

export interface Row extends Summary {
  phase: string;
  /** CPU ms per command of the service's processes, Postgres and Redis (rows that run the service). */
  cpu?: CpuPerCommand;
}

const SERVICE = 'service, one process (HTTP)';
const SPLIT = 'service, api + worker (HTTP)';
const TRANSACTION = 'limit: worker transaction alone';
const BULLMQ = 'limit: BullMQ add + wait, no-op';

/** The markdown the benchmark prints: every phase, then the service beside its limits. */
export function printReport(r: {
  rows: Row[];
  capRows: CapRow[];
  statements: { statements: number; commands: number; perCommand: number } | undefined;
  memory: string[];
  seconds: number;
  machine: string;
  /** --only tracing: each variant against tracing off in the same rounds (bench/commands/tracing.ts). */
  tracing?: string;
  /** --only split --compare: this build's api + worker beside another checkout's, round by round (split-compare.ts). */
  compare?: string;
}): void {
  const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');
  const lines = [
    `### Command path beside its limits (${r.seconds} s per row; ${r.machine})`,
    '',
    '| phase | callers | commands/s | p50 ms | p99 ms | max ms | errors | CPU ms/command: node · postgres · redis |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
    ...r.capRows.map(
      (x) => `| design cap | ${x.callers} | ${f(x.perSecond, 0)} | ${f(x.p50)} | ${f(x.p99)} | – | ${x.errors} | ${cpuText(x.cpu)} |`,
    ),
    ...r.rows.map(
      (x) =>
        `| ${x.phase} | ${x.callers} | ${f(x.perSecond, 0)} | ${f(x.p50)} | ${f(x.p99)} | ${f(x.max, 0)} | ${x.errors} | ${x.cpu ? cpuText(x.cpu) : '–'} |`,
    ),
    '',
    'CPU ms per command: node = the service processes (the cap: its server and worker), postgres = the backends of the',
    "run's own database (sampled from /proc: the machine's Postgres is shared), redis = the whole Redis server (shared too).",
    '',
  ];
  lines.push(...capComparison(r.rows, r.capRows));
  const at = (phase: string, callers: number) => r.rows.find((x) => x.phase === phase && x.callers === callers);
  const levels = [...new Set(r.rows.map((x) => x.callers))];
  const ratio = (a?: Row, b?: Row) => (a && b ? `${f(a.perSecond / b.perSecond, 2)} (${f(a.perSecond, 0)} / ${f(b.perSecond, 0)})` : '–');
  lines.push(
    '| callers | one process / transaction alone | one process / BullMQ no-op | api + worker / transaction alone |',
    '|---:|---:|---:|---:|',
    ...levels.map(
      (c) =>
        `| ${c} | ${ratio(at(SERVICE, c), at(TRANSACTION, c))} | ${ratio(at(SERVICE, c), at(BULLMQ, c))} | ${ratio(at(SPLIT, c), at(TRANSACTION, c))} |`,
    ),
    '',
  );
  if (r.statements) {
    lines.push(
      `Statements sent to Postgres per command, everything counted (API, workers, outbox relay): ${f(r.statements.perCommand, 2)} (${r.statements.statements} for ${r.statements.commands} commands, 8 callers).`,
      '',
    );
  }
  if (r.compare)
    lines.push('api + worker, this build beside the other checkout, round by round (CPU: both processes, from /proc):', '', r.compare, '');
  if (r.tracing) lines.push('Tracing variants, round by round (CPU: the service process, from /proc):', '', r.tracing, '');
  if (r.memory.length) lines.push('RSS of the service processes (start → end of each row):', '', ...r.memory.map((m) => `- ${m}`), '');
  process.stdout.write(lines.join('\n'));
}

const cpuText = (c: CpuPerCommand) => `${c.node.toFixed(2)} · ${c.postgres.toFixed(2)} · ${c.redis.toFixed(2)}`;

/** Service ÷ cap for each measure of the goal, at each caller count both ran. */
function capComparison(rows: Row[], capRows: CapRow[]): string[] {
  const out: string[] = [];
  const x = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)} ×` : '–');
  for (const cap of capRows) {
    for (const phase of [SERVICE, CAP_COMMAND, SPLIT]) {
      const svc = rows.find((r) => r.phase === phase && r.callers === cap.callers);
      if (!svc) continue;
      if (out.length === 0) {
        out.push(
          '| service ÷ design cap | callers | commands/s | p50 | p99 | node CPU/command | postgres CPU/command | redis CPU/command |',
          '|---|---:|---:|---:|---:|---:|---:|---:|',
        );
      }
      const c = svc.cpu;
      out.push(
        `| ${phase} | ${cap.callers} | ${x(svc.perSecond, cap.perSecond)} | ${x(svc.p50, cap.p50)} | ${x(svc.p99, cap.p99)} | ${c ? x(c.node, cap.cpu.node) : '–'} | ${c ? x(c.postgres, cap.cpu.postgres) : '–'} | ${c ? x(c.redis, cap.cpu.redis) : '–'} |`,
      );
    }
  }
  return out.length ? [...out, ''] : [];
}
