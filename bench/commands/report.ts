import type { Summary } from './load.ts';

export interface Row extends Summary {
  phase: string;
}

const SERVICE = 'service, one process (HTTP)';
const SPLIT = 'service, api + worker (HTTP)';
const TRANSACTION = 'limit: worker transaction alone';
const BULLMQ = 'limit: BullMQ add + wait, no-op';

/** The markdown the benchmark prints: every phase, then the service beside its limits. */
export function printReport(r: {
  rows: Row[];
  statements: { statements: number; commands: number; perCommand: number } | undefined;
  memory: string[];
  seconds: number;
  machine: string;
}): void {
  const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');
  const lines = [
    `### Command path beside its limits (${r.seconds} s per row; ${r.machine})`,
    '',
    '| phase | callers | commands/s | p50 ms | p99 ms | max ms | errors |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...r.rows.map((x) => `| ${x.phase} | ${x.callers} | ${f(x.perSecond, 0)} | ${f(x.p50)} | ${f(x.p99)} | ${f(x.max, 0)} | ${x.errors} |`),
    '',
  ];
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
  if (r.memory.length) lines.push('RSS of the service processes (start → end of each row):', '', ...r.memory.map((m) => `- ${m}`), '');
  process.stdout.write(lines.join('\n'));
}
