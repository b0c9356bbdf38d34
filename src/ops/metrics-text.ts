import type { Queue } from 'bullmq';
import type { Executor } from '../db/client.ts';
import type { HttpMetrics } from './http-metrics.ts';
import { outboxBacklog, queueStats } from './queue-stats.ts';

/** Prometheus text (format 0.0.4): jobs per queue and state, the outbox backlog, HTTP counters. */
export async function renderMetricsText(queues: readonly Queue[], ex: Executor, http: HttpMetrics): Promise<string> {
  const [stats, backlog] = await Promise.all([queueStats(queues), outboxBacklog(ex)]);
  const lines = ['# HELP fulfil_queue_jobs Jobs by queue and state.', '# TYPE fulfil_queue_jobs gauge'];
  for (const s of stats) for (const [state, n] of Object.entries(s.counts)) lines.push(`fulfil_queue_jobs{queue="${s.queue}",state="${state}"} ${n}`);
  lines.push('# HELP fulfil_outbox_backlog Events not yet relayed to the events queue.', '# TYPE fulfil_outbox_backlog gauge');
  lines.push(`fulfil_outbox_backlog ${backlog}`, ...http.render());
  return `${lines.join('\n')}\n`;
}
