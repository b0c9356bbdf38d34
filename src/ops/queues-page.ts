import type { Queue } from 'bullmq';
import type { Executor } from '../db/client.ts';
import { listJobs, type JobSummary } from './failed-jobs.ts';
import { outboxBacklog, queueStats, type QueueStats } from './queue-stats.ts';

export interface QueuesPageData {
  stats: QueueStats[];
  backlog: number;
  failed: JobSummary[];
}

/** HTML-escapes any value; everything that reaches the page goes through it, numbers included. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** How many failed jobs the page lists. */
export const FAILED_JOBS_SHOWN = 50;

export async function loadQueuesPageData(queues: readonly Queue[], ex: Executor): Promise<QueuesPageData> {
  const [stats, backlog, failed] = await Promise.all([queueStats(queues), outboxBacklog(ex), listJobs(queues, 'failed', FAILED_JOBS_SHOWN)]);
  return { stats, backlog, failed };
}

/** The read-only queue page for people: counts per queue and state, the outbox backlog, the latest failed jobs. */
export function renderQueuesPage({ stats, backlog, failed }: QueuesPageData): string {
  const e = escapeHtml;
  const states = Object.keys(stats[0]?.counts ?? {}) as Array<keyof QueueStats['counts']>;
  const queueRows = stats.map(
    (s) =>
      `<tr><td class="l">${e(s.queue)}</td>${states
        .map((st) => `<td class="${st === 'failed' && s.counts[st] ? 'bad' : ''}">${e(s.counts[st])}</td>`)
        .join('')}</tr>`,
  );
  const failedRows = failed.map(
    (j) =>
      `<tr><td class="l">${e(j.queue)}</td><td class="l">${e(j.id)}</td><td class="l">${e(j.name)}</td><td>${e(j.attempts)}</td>` +
      `<td class="l">${e(j.failedReason ?? '')}</td><td class="l">${e(j.finishedOn ?? j.timestamp)}</td></tr>`,
  );
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="5">
<title>fulfil queues</title><style>body{font:14px system-ui;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#f4f4f4}td.l{text-align:left}.bad{color:#b00;font-weight:bold}</style></head><body>
<h1>fulfil queues</h1><p>Outbox backlog: <b>${e(backlog)}</b> · refreshed every 5 s · replay failed jobs with <code>fulfil jobs retry</code></p>
<table><tr><th class="l">queue</th>${states.map((s) => `<th>${e(s)}</th>`).join('')}</tr>
${queueRows.join('\n')}
</table><h2>Failed jobs (latest ${FAILED_JOBS_SHOWN})</h2><table><tr><th class="l">queue</th><th class="l">job</th><th class="l">command</th><th>attempts</th><th class="l">reason</th><th class="l">at</th></tr>
${failedRows.join('\n')}
</table></body></html>`;
}
