import type { LoadRun } from './scale-load.ts';
import { ACTIVITY_SAMPLE_MS, OUTBOX_SAMPLE_MS, QUEUE_SAMPLE_MS, type Profile } from './scale-profile.ts';
import type { CpuUse, ServiceProcessStats } from './scale-profile-procs.ts';

/**
 * One config's profile as a markdown section. No table row starts with a number (the device
 * scripts gather the bench's result rows by that), and the section has no `###` heading of the
 * result table's kind.
 */
export interface ProfiledRun {
  label: string;
  commands: number;
  clients: number;
  load: LoadRun;
  cpu: CpuUse;
  profile?: Profile;
}

const f = (n: number | undefined, d = 1) => (n === undefined || !Number.isFinite(n) ? 'n/a' : n.toFixed(d));
const pct = (part: number, whole: number) => (whole > 0 ? `${f((100 * part) / whole, 0)} %` : 'n/a');
const cell = (s: string) => s.replace(/\|/g, '\\|');

/** A pg_stat_statements text in one line: its verb and table first, then its start. */
function statementLabel(query: string): string {
  const text = query.replace(/\s+/g, ' ').trim();
  const verb = /^[a-z]+/i.exec(text)?.[0]?.toUpperCase() ?? '?';
  // The first relation named after FROM, INTO or UPDATE that is not a function call (extract(epoch from now())).
  const named = [...text.matchAll(/\b(?:from|into|update)\s+(?:only\s+)?([\w."]+)(\()?/gi)].find((m) => !m[2])?.[1];
  const table = named?.replace(/"/g, '').split('.').pop();
  const head = text.length > 70 ? `${text.slice(0, 70)}…` : text;
  return `${verb}${table ? ` ${table}` : ''}: \`${head.replace(/`/g, "'")}\``;
}

function worstLoop(stats: Array<{ eventLoop?: { meanMs: number; p99Ms: number; maxMs: number } | undefined }>): string {
  const loops = stats.map((s) => s.eventLoop).filter((e) => e !== undefined);
  if (loops.length === 0) return 'n/a';
  const worst = loops.reduce((a, b) => (b.p99Ms > a.p99Ms ? b : a));
  return `${f(worst.meanMs)} / ${f(worst.p99Ms)} / ${f(worst.maxMs)}`;
}

function meanOf(stats: ServiceProcessStats[]): string {
  const withMean = stats.map((s) => s.mean).filter((m) => m !== undefined);
  const count = withMean.reduce((a, m) => a + m.count, 0);
  return count > 0 ? f(withMean.reduce((a, m) => a + m.ms * m.count, 0) / count, 2) : 'n/a';
}

function cpuLines(r: ProfiledRun): string[] {
  const g = r.cpu.groups;
  const m = r.cpu.machine;
  const perCommand = (cores: number) => f((cores * r.cpu.seconds * 1000) / r.commands, 3);
  const relay = r.profile?.workers.findIndex((w) => w.relayActive) ?? -1;
  const group = (name: string, k: keyof CpuUse['groups']) =>
    `${name} ${f(g[k].cores, 2)}${g[k].perProcess.length > 1 ? ` (busiest ${f(g[k].busiest, 2)})` : ''}`;
  const redisMain =
    r.profile?.redis.mainThreadCpuSeconds !== undefined
      ? `, main thread ${f(r.profile.redis.mainThreadCpuSeconds / r.cpu.seconds, 2)}`
      : '';
  const service = g.api.cores + g.worker.cores + g.postgres.cores + g.redis.cores;
  return [
    `CPU in cores over the timed phase: machine ${f(m.busy, 1)} busy of ${m.cores} (system ${f(m.system, 1)}, irq ${f(m.softirq, 1)}, steal ${f(m.steal, 1)}) · ` +
      `${group('API', 'api')} · ${group('worker', 'worker')}${relay >= 0 ? ` (relay in worker ${relay + 1}: ${f(g.worker.perProcess[relay], 2)})` : ''} · ` +
      `${group('Postgres', 'postgres')} · Redis ${f(g.redis.cores, 2)}${redisMain} · ${group('load', 'load')} · bench samplers ${f(r.cpu.bench, 2)}.`,
    '',
    `CPU ms per command: API ${perCommand(g.api.cores)}, worker ${perCommand(g.worker.cores)}, Postgres ${perCommand(g.postgres.cores)}, ` +
      `Redis ${perCommand(g.redis.cores)} (service and stores ${perCommand(service)}); load ${perCommand(g.load.cores)}.`,
    '',
  ];
}

function latencyLines(r: ProfiledRun): string[] {
  const mean = r.load.latencies.reduce((a, b) => a + b, 0) / Math.max(1, r.load.latencies.length);
  const p = r.profile;
  const spread = r.load.processes.map((l) => f(l.seconds, 2)).join(' / ');
  return [
    `Latency in ms: client mean ${f(mean, 2)} (p50 ${f(r.load.p50, 2)}, p99 ${f(r.load.p99, 2)}) · API request, server side, mean ${p ? meanOf(p.apis) : 'n/a'} · ` +
      `worker command attempt, mean ${p ? meanOf(p.workers) : 'n/a'}.`,
    '',
    `Event-loop delay in ms (mean / p99 / max of the worst process; ${p ? 'service processes from their /metrics' : 'no /metrics scraped'}): ` +
      `API ${p ? worstLoop(p.apis) : 'n/a'} · worker ${p ? worstLoop(p.workers) : 'n/a'} · load ${worstLoop(r.load.processes)}. ` +
      `Load processes: ${r.load.processes.length} (${r.load.processes.map((l) => l.clients).join(' / ')} clients), each done after ${spread} s.`,
    '',
  ];
}

function postgresLines(p: Profile, commands: number): string[] {
  const rows = [...p.activity.backends].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((a, [, n]) => a + n, 0);
  const locks = [...p.activity.lockWaits].sort((a, b) => b[1] - a[1]);
  const out = [
    `Postgres backends of the bench database, pg_stat_activity every ${ACTIVITY_SAMPLE_MS} ms (${p.activity.samples} samples; mean backends per sample, ${f(total, 1)} in all):`,
    '',
    '| state · statement · wait | backends | share |',
    '|---|---|---|',
    ...rows.slice(0, 15).map(([k, n]) => `| ${cell(k)} | ${f(n, 2)} | ${pct(n, total)} |`),
    '',
    `Ungranted locks (pg_locks, mean per sample): ${locks.length ? locks.map(([k, n]) => `${k} ${f(n, 3)}`).join(', ') : 'none seen'}.`,
    '',
  ];
  if (p.statements) {
    const all = p.statements.reduce((a, s) => a + s.ms, 0);
    const calls = p.statements.reduce((a, s) => a + s.calls, 0);
    out.push(
      `pg_stat_statements over the timed phase: ${f(calls / commands, 2)} statements and ${f(all / commands, 3)} ms of server time per command; the 15 that took most:`,
      '',
      '| statement | calls/command | mean ms | ms/command | rows/call | share |',
      '|---|---|---|---|---|---|',
      ...p.statements
        .slice(0, 15)
        .map(
          (s) =>
            `| ${cell(statementLabel(s.query))} | ${f(s.calls / commands, 3)} | ${f(s.ms / s.calls, 3)} | ${f(s.ms / commands, 3)} | ${f(s.rows / s.calls, 1)} | ${pct(s.ms, all)} |`,
        ),
      '',
    );
    const batches = p.statements.find((s) => /update event_feed f set position/i.test(s.query));
    out.push(
      `Outbox relay: ${batches ? `${batches.calls} batches, ${f(batches.rows / batches.calls, 1)} events per batch, ${f(batches.ms / batches.calls, 2)} ms each` : 'no batch statement seen'}; ` +
        `backlog (every ${OUTBOX_SAMPLE_MS} ms) mean ${f(p.outbox.backlogMean, 1)}, max ${p.outbox.backlogMax}; oldest unrelayed event mean ${f(p.outbox.lagMeanMs, 0)} ms, max ${f(p.outbox.lagMaxMs, 0)} ms.`,
      '',
    );
  }
  if (p.wal) {
    const d = (k: keyof typeof p.wal.after) => (p.wal!.after[k] ?? 0) - (p.wal!.before[k] ?? 0);
    out.push(
      `WAL: ${f(d('records') / commands, 1)} records and ${f(d('bytes') / commands, 0)} bytes per command (${f(d('fullPageImages') / commands, 2)} full-page images); ` +
        `${d('commits')} commits over ${d('syncs')} WAL syncs (${f(d('commits') / Math.max(1, d('syncs')), 2)} per sync) and ${d('writes')} writes; ` +
        `WAL buffers full ${d('buffersFull')}${p.wal.after.checkpoints !== undefined ? `; checkpoints ${d('checkpoints')}` : ''}.`,
      '',
    );
  }
  return out;
}

function redisLines(p: Profile, commands: number, seconds: number): string[] {
  const total = p.redis.commands.reduce((a, c) => a + c.usec, 0);
  return [
    `Redis: ${f(p.redis.cpuSeconds / seconds, 2)} cores by INFO cpu${p.redis.mainThreadCpuSeconds !== undefined ? ` (main thread ${f(p.redis.mainThreadCpuSeconds / seconds, 2)})` : ''}; ` +
      `commands by time (INFO commandstats; EVALSHA's time includes the commands its scripts run, which are listed too):`,
    '',
    '| command | calls/command | µs/call | µs/command |',
    '|---|---|---|---|',
    ...p.redis.commands
      .slice(0, 12)
      .map((c) => `| ${c.command} | ${f(c.calls / commands, 2)} | ${f(c.usec / c.calls, 1)} | ${f(c.usec / commands, 1)} |`),
    '',
    `(${f(total / commands, 0)} µs per command in all; LLEN and ZCARD include the queue sampler's own, and the outbox count above is the bench's too.) ` +
      `BullMQ queues of this run, every ${QUEUE_SAMPLE_MS} ms:`,
    '',
    '| queue | waiting, mean | waiting, max | active, mean | active, max | delayed, max |',
    '|---|---|---|---|---|---|',
    ...p.queues
      .filter((q) => q.waitingMax + q.activeMax + q.delayedMax > 0)
      .map(
        (q) => `| ${cell(q.queue)} | ${f(q.waitingMean, 1)} | ${q.waitingMax} | ${f(q.activeMean, 1)} | ${q.activeMax} | ${q.delayedMax} |`,
      ),
    '',
  ];
}

export function profileReport(r: ProfiledRun): string {
  const lines = [`#### Profile of ${r.label}: ${r.clients} clients, ${f(r.cpu.seconds, 1)} s timed, ${r.commands} commands`, ''];
  lines.push(...cpuLines(r), ...latencyLines(r));
  if (r.profile) lines.push(...postgresLines(r.profile, r.commands), ...redisLines(r.profile, r.commands, r.cpu.seconds));
  return lines.join('\n');
}
