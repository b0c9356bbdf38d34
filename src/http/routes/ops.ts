import type { Queue } from 'bullmq';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { Unauthorized } from '../../errors.ts';
import { listJobs } from '../../ops/failed-jobs.ts';
import type { HttpMetrics } from '../../ops/http-metrics.ts';
import { outboxBacklog, queueStats } from '../../ops/queue-stats.ts';
import type { AppDeps } from '../app.ts';

export interface OpsDeps {
  queues: readonly Queue[];
  metrics: HttpMetrics;
}

const escape = (s: unknown) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** With OPS_TOKEN set, the operator pages want it as a bearer token (or ?token= for a browser). */
function checkOpsToken(deps: AppDeps, request: FastifyRequest): void {
  const expected = deps.config.OPS_TOKEN;
  if (!expected) return;
  const header = request.headers.authorization?.replace(/^Bearer\s+/i, '');
  const given = header ?? (request.query as Record<string, string | undefined>).token ?? '';
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw new Unauthorized('invalid credentials');
}

/** Metrics for Prometheus and a read-only queue page for people; replays go through the CLI. */
export function opsRoutes(app: FastifyInstance, deps: AppDeps, ops: OpsDeps): void {
  app.get('/metrics', async (request, reply) => {
    checkOpsToken(deps, request);
    const [stats, backlog] = await Promise.all([queueStats(ops.queues), outboxBacklog(deps.database.db)]);
    const lines = ['# HELP fulfil_queue_jobs Jobs by queue and state.', '# TYPE fulfil_queue_jobs gauge'];
    for (const s of stats) for (const [state, n] of Object.entries(s.counts)) lines.push(`fulfil_queue_jobs{queue="${s.queue}",state="${state}"} ${n}`);
    lines.push('# HELP fulfil_outbox_backlog Events not yet relayed to the events queue.', '# TYPE fulfil_outbox_backlog gauge');
    lines.push(`fulfil_outbox_backlog ${backlog}`, ...ops.metrics.render());
    return reply.type('text/plain; version=0.0.4').send(`${lines.join('\n')}\n`);
  });

  app.get('/ops/queues', async (request, reply) => {
    checkOpsToken(deps, request);
    const [stats, backlog, failed] = await Promise.all([queueStats(ops.queues), outboxBacklog(deps.database.db), listJobs(ops.queues, 'failed', 50)]);
    const states = Object.keys(stats[0]?.counts ?? {});
    const html = `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="5">
<title>fulfil queues</title><style>body{font:14px system-ui;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#f4f4f4}td.l{text-align:left}.bad{color:#b00;font-weight:bold}</style></head><body>
<h1>fulfil queues</h1><p>Outbox backlog: <b>${backlog}</b> · refreshed every 5 s · replay failed jobs with <code>fulfil jobs retry</code></p>
<table><tr><th class="l">queue</th>${states.map((s) => `<th>${escape(s)}</th>`).join('')}</tr>
${stats.map((s) => `<tr><td class="l">${escape(s.queue)}</td>${states.map((st) => `<td class="${st === 'failed' && s.counts[st as 'failed'] ? 'bad' : ''}">${s.counts[st as 'failed']}</td>`).join('')}</tr>`).join('\n')}
</table><h2>Failed jobs (latest 50)</h2><table><tr><th class="l">queue</th><th class="l">job</th><th class="l">command</th><th>attempts</th><th class="l">reason</th><th class="l">at</th></tr>
${failed.map((j) => `<tr><td class="l">${escape(j.queue)}</td><td class="l">${escape(j.id)}</td><td class="l">${escape(j.name)}</td><td>${j.attempts}</td><td class="l">${escape(j.failedReason ?? '')}</td><td class="l">${escape(j.finishedOn ?? j.timestamp)}</td></tr>`).join('\n')}
</table></body></html>`;
    return reply.type('text/html; charset=utf-8').send(html);
  });
}
