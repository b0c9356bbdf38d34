import type { Queue } from 'bullmq';
import { isNull, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { outbox } from '../db/schema.ts';
import { metricsRegistry, outboxBacklogGauge, outboxLagGauge } from './metrics.ts';

/** Prometheus text exposition format 0.0.4, as prom-client and Prometheus name it. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface ScrapeSources {
  queues: readonly Queue[];
  db: Executor;
}

/** Events written but not yet relayed, and how old the oldest of them is. */
export async function outboxState(ex: Executor): Promise<{ backlog: number; lagSeconds: number }> {
  const [row] = await ex
    .select({
      n: sql<number>`count(*)::int`,
      lag: sql<number>`coalesce(extract(epoch from now() - min(${outbox.createdAt})), 0)::float8`,
    })
    .from(outbox)
    .where(isNull(outbox.relayedAt));
  return { backlog: Number(row?.n ?? 0), lagSeconds: Math.max(0, Number(row?.lag ?? 0)) };
}

/**
 * BullMQ writes HELP and TYPE per queue; the text format wants each family once, so the samples
 * of every queue are gathered under one header (and the label lists lose their blanks).
 */
export function mergeFamilies(texts: readonly string[]): string {
  const families = new Map<string, { header: string[]; samples: string[] }>();
  for (const text of texts) {
    let current: { header: string[]; samples: string[] } | undefined;
    for (const line of text.split('\n')) {
      const meta = /^# (HELP|TYPE) (\S+)/.exec(line);
      if (meta) {
        const name = meta[2]!;
        current = families.get(name);
        if (!current) families.set(name, (current = { header: [], samples: [] }));
        if (current.header.length < 2 && !current.header.some((h) => h.startsWith(`# ${meta[1]} `))) current.header.push(line);
        continue;
      }
      if (line.trim() === '' || !current) continue;
      current.samples.push(line.replace(/,\s+(?=[a-zA-Z_]\w*=")/g, ','));
    }
  }
  return [...families.values()].map((f) => [...f.header, ...f.samples].join('\n')).join('\n');
}

/** Everything /metrics shows: this process's registry, the outbox read now, BullMQ's own job metrics. */
export async function renderMetrics(sources: ScrapeSources): Promise<string> {
  const [state, ...bull] = await Promise.all([outboxState(sources.db), ...sources.queues.map((q) => q.exportPrometheusMetrics())]);
  outboxBacklogGauge.set(state.backlog);
  outboxLagGauge.set(state.lagSeconds);
  const own = await metricsRegistry.metrics();
  return `${own.trimEnd()}\n${mergeFamilies(bull)}\n`;
}
