import type { Row } from './scale-report.ts';

/** One Redis layout of `npm run bench -- scale --redis …`: a single Redis or a three-master cluster, and COMMAND_SHARDS. */
export interface Layout {
  redis: 'single' | 'cluster';
  shards: number;
}

export interface LayoutRow extends Layout {
  row: Row;
  /** Redis CPU ms per command of each Redis process (one, or each master). */
  perMaster: number[];
  /** The same less what each Redis burns with the fleet idle over as long (measured just before). */
  marginal: number[];
}

export function parseLayouts(spec: string): Layout[] {
  return spec
    .split(',')
    .filter(Boolean)
    .map((item) => {
      const m = /^(single|cluster):(\d+)$/.exec(item.trim());
      if (!m) throw new Error(`--redis: "${item}" is not single:N or cluster:N`);
      return { redis: m[1] as Layout['redis'], shards: Number(m[2]) };
    });
}

export function layoutReport(rows: LayoutRow[], o: { apis: number; workers: number }): string {
  if (rows.length === 0) return '';
  const f = (n: number, d = 1) => n.toFixed(d);
  return [
    '',
    `### Redis layouts: ${o.apis} API × ${o.workers} worker processes, the same flows`,
    '',
    '| Redis | COMMAND_SHARDS | commands/s | p99 ms | Redis CPU ms/command (all) | per master ms/command | same, idle CPU taken out | busiest master (idle out) |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => {
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      const marginal = sum(r.marginal);
      const busiest = marginal > 0 ? Math.max(...r.marginal) / marginal : 1;
      const list = (xs: number[]) => xs.map((ms) => f(ms, 3)).join(' / ');
      return `| ${r.redis === 'single' ? 'single' : `cluster of ${r.perMaster.length}`} | ${r.shards} | ${f(r.row.commandsPerSecond)} | ${f(r.row.p99)} | ${f(sum(r.perMaster), 3)} | ${list(r.perMaster)} | ${list(r.marginal)} | ${f(busiest * 100, 0)} % |`;
    }),
    '',
    'The busiest master bounds a cluster: commands/s per Redis core = 1000 / its ms per command.',
    'Idle CPU (blocking reads, timers, announcements) is a fixed cost per second, not per command:',
    'at the low rates of a shared 2-core machine it weighs heavily in the raw column.',
    '',
  ].join('\n');
}
