import { cpus, totalmem } from 'node:os';
import type { PgWork } from './postgres-work.ts';

/** One measured api×workers row of `npm run bench -- scale`. */
export interface Row {
  apis: number;
  workers: number;
  commandsPerSecond: number;
  p50: number;
  p99: number;
  work: PgWork;
  redisCpuMsPerCommand: number;
  redisCores: number;
  serviceCpuMsPerCommand: number;
  serviceCores: number;
  apiCpuMsPerCommand: number;
  workerCpuMsPerCommand: number;
  clients: number;
  loadProcesses: number;
  loadCores: number;
  /** Busy cores of the whole machine (everything on it, the bench included). */
  machineCores: number;
}

export function report(results: Row[], o: { flows: number }): string {
  const f = (n: number | undefined, d = 1) => (n === undefined ? 'n/a' : n.toFixed(d));
  const clients = [...new Set(results.map((r) => r.clients))].join(', ');
  const lines = [
    `### Scale-out: ${o.flows} link-delivery flows (${o.flows * 3} commands) per row, ${clients} concurrent HTTP clients`,
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB; ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '| API procs | worker procs | commands/s | p50 ms | p99 ms | service CPU (cores) | Postgres CPU (cores) | Redis CPU (cores) | clients | load procs | load CPU (cores) | machine busy (cores) | Postgres statements/command | Postgres server ms/command |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.apis} | ${r.workers} | ${f(r.commandsPerSecond)} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.serviceCores, 2)} | ${f(r.work.cpuCores, 2)} | ${f(r.redisCores, 2)} | ` +
        `${r.clients} | ${r.loadProcesses} | ${f(r.loadCores, 2)} | ${f(r.machineCores, 1)} of ${cpus().length} | ${f(r.work.statementsPerCommand, 2)} | ${f(r.work.serverExecMsPerCommand, 3)} |`,
    ),
    '',
    'Work per command (mean over the rows):',
    '',
  ];
  const mean = (pick: (r: (typeof results)[number]) => number | undefined) => {
    const xs = results.map(pick).filter((x): x is number => x !== undefined);
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined;
  };
  const pgCpu = mean((r) => r.work.cpuMsPerCommand);
  const redisCpu = mean((r) => r.redisCpuMsPerCommand);
  lines.push(
    '| measure | per command |',
    '|---|---|',
    `| Postgres statements | ${f(mean((r) => r.work.statementsPerCommand))} |`,
    `| Postgres transactions | ${f(mean((r) => r.work.xactsPerCommand))} |`,
    `| rows written (ins+upd+del) | ${f(mean((r) => r.work.tuplesPerCommand))} |`,
    `| WAL bytes | ${f(
      mean((r) => r.work.walBytesPerCommand),
      0,
    )} |`,
    `| Postgres server execution time, ms | ${f(
      mean((r) => r.work.serverExecMsPerCommand),
      3,
    )} |`,
    `| order-lock statement time (waits included), ms | ${f(
      mean((r) => r.work.lockStatementMsPerCommand),
      3,
    )} |`,
    `| Postgres CPU (all its processes), ms | ${f(pgCpu, 3)} |`,
    `| Redis CPU, ms | ${f(redisCpu, 3)} |`,
    `| service CPU (API + worker processes), ms | ${f(
      mean((r) => r.serviceCpuMsPerCommand),
      3,
    )} |`,
    `| of which API processes, ms | ${f(
      mean((r) => r.apiCpuMsPerCommand),
      3,
    )} |`,
    `| of which worker processes, ms | ${f(
      mean((r) => r.workerCpuMsPerCommand),
      3,
    )} |`,
    '',
    `Implied ceiling: ${f(pgCpu ? 1000 / pgCpu : undefined, 0)} commands/s per Postgres core, ${f(redisCpu ? 1000 / redisCpu : undefined, 0)} commands/s per Redis core (single-threaded).`,
    '',
  );
  return lines.join('\n');
}
