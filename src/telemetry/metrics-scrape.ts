import type { Queue } from 'bullmq';
import { sql, type SQL } from 'drizzle-orm';
import { query, type Executor } from '../db/client.ts';
import { commands } from '../db/schema.ts';
import {
  commandsOldestUnfinishedGauge,
  commandsUnfinishedGauge,
  deliveryIssuesGauge,
  dependencyUpGauge,
  metricsRegistry,
  ordersOverdueGauge,
  outboxBacklogGauge,
  outboxLagGauge,
  queueWorkersGauge,
} from './metrics-registry.ts';
import { readWebhookGauges } from './webhook-metrics.ts';
import { readMailedTrouble } from './mailed-metrics.ts';
import { METRIC_MODES, modeCounts, type ModeCounts } from './metric-modes.ts';

/** Prometheus text exposition format 0.0.4, as prom-client and Prometheus name it. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface ScrapeSources {
  queues: readonly Queue[];
  db: Executor;
}

/** How many rows match, and the age in seconds of the oldest of them (0 when none). */
async function countAndOldest(ex: Executor, table: typeof commands, where: SQL): Promise<{ n: number; age: number }> {
  const [row] = await ex
    .select({
      n: sql<number>`count(*)::int`,
      age: sql<number>`coalesce(extract(epoch from now() - min(${table.createdAt})), 0)::float8`,
    })
    .from(table)
    .where(where);
  return { n: Number(row?.n ?? 0), age: Math.max(0, Number(row?.age ?? 0)) };
}

/**
 * Events written but not yet relayed, and how old the oldest of them is (the outbox: feed rows
 * with no position, a partial index of their own; the oldest is the first by event row id).
 */
export async function outboxState(ex: Executor): Promise<{ backlog: number; lagSeconds: number }> {
  const rows = await query<{ n: number; age: number }>(
    ex,
    sql`select (select count(*) from event_feed where position is null)::int as n,
      coalesce((select extract(epoch from now() - e.at) from event_feed f join shipment_events e on e.id = f.event_row_id
        where f.position is null order by f.event_row_id limit 1), 0)::float8 as age`,
  );
  const row = rows[0];
  return { backlog: Number(row?.n ?? 0), lagSeconds: Math.max(0, Number(row?.age ?? 0)) };
}

/** Commands not finished yet, and how old the oldest is (the partial index commands_open_idx keeps it cheap). */
export async function unfinishedCommands(ex: Executor): Promise<{ count: number; oldestSeconds: number }> {
  const { n, age } = await countAndOldest(
    ex,
    commands,
    sql`${commands.status} <> 'succeeded' and ${commands.status} in ('queued', 'running')`,
  );
  return { count: n, oldestSeconds: age };
}

/**
 * Open orders past their deadline, per mode. Those on the wall clock are one range of the partial
 * index orders_open_deliver_by_idx; a test order on a test clock is past it at the clock's time,
 * and only those orders are read for it (orders_test_clock_idx).
 */
export async function overdueOrders(ex: Executor): Promise<ModeCounts> {
  const rows = await query<{ livemode: boolean; n: number }>(
    ex,
    sql`select o.livemode, count(*)::int as n from orders o
        where o.state in ('pending', 'accepted', 'cancel_proposed') and o.deliver_by is not null and o.deliver_by < now()
          and o.test_clock_id is null
        group by o.livemode
      union all
      select o.livemode, count(*)::int as n from orders o join test_clocks c on c.id = o.test_clock_id
        where o.test_clock_id is not null and o.state in ('pending', 'accepted', 'cancel_proposed') and o.deliver_by is not null
          and o.deliver_by < c.frozen_time
        group by o.livemode`,
  );
  return modeCounts(rows);
}

/** Delivery issues waiting on the seller (open) and on an operator (escalated), per mode; partial indexes keep each one range. */
export async function waitingDeliveryIssues(ex: Executor): Promise<{ open: ModeCounts; escalated: ModeCounts }> {
  const rows = await query<{ state: string; livemode: boolean; n: number }>(
    ex,
    sql`select i.state, o.livemode, count(*)::int as n from delivery_issues i join orders o on o.id = i.order_id
      where i.state in ('open', 'escalated') group by i.state, o.livemode`,
  );
  return {
    open: modeCounts(rows.filter((r) => r.state === 'open')),
    escalated: modeCounts(rows.filter((r) => r.state === 'escalated')),
  };
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

/**
 * Everything /metrics shows: this process's registry, the outbox, unfinished commands and
 * webhook backlog read now, the workers consuming each queue, BullMQ's own job metrics. A dependency that does not
 * answer leaves its families out and says so in fulfil_dependency_up, so Prometheus still gets
 * the rest (and the alert names the part that is down).
 */
export async function renderMetrics(sources: ScrapeSources): Promise<string> {
  const [postgres, redis] = await Promise.allSettled([
    Promise.all([
      outboxState(sources.db),
      unfinishedCommands(sources.db),
      readWebhookGauges(sources.db),
      overdueOrders(sources.db),
      waitingDeliveryIssues(sources.db),
      readMailedTrouble(sources.db),
    ]),
    Promise.all([
      Promise.all(sources.queues.map((q) => q.exportPrometheusMetrics({ prefix: q.opts.prefix ?? '' }))),
      Promise.all(sources.queues.map(async (q) => [q.name, q.opts.prefix ?? '', await q.getWorkersCount()] as const)),
    ]),
  ]);
  dependencyUpGauge.set({ dependency: 'postgres' }, postgres.status === 'fulfilled' ? 1 : 0);
  dependencyUpGauge.set({ dependency: 'redis' }, redis.status === 'fulfilled' ? 1 : 0);
  if (postgres.status === 'fulfilled') {
    const [state, unfinished, , overdue, issues] = postgres.value;
    for (const mode of METRIC_MODES) {
      ordersOverdueGauge.set({ mode }, overdue[mode]);
      deliveryIssuesGauge.set({ state: 'open', mode }, issues.open[mode]);
      deliveryIssuesGauge.set({ state: 'escalated', mode }, issues.escalated[mode]);
    }
    outboxBacklogGauge.set(state.backlog);
    outboxLagGauge.set(state.lagSeconds);
    commandsUnfinishedGauge.set(unfinished.count);
    commandsOldestUnfinishedGauge.set(unfinished.oldestSeconds);
  }
  let bull: string[] = [];
  if (redis.status === 'fulfilled') {
    bull = redis.value[0];
    for (const [queue, prefix, n] of redis.value[1]) queueWorkersGauge.set({ queue, prefix }, n);
  }
  const own = await metricsRegistry.metrics();
  return `${own.trimEnd()}\n${mergeFamilies(bull)}\n`;
}
