import { Counter, Gauge, Histogram } from 'prom-client';
import { sql } from 'drizzle-orm';
import { query, type Executor } from '../db/client.ts';
import { metricsRegistry } from './metrics-registry.ts';

/** Names the operators' alert rules match (docs/OPERATIONS.md): keep them as they are. */
const deliveryLatency = new Histogram({
  name: 'fulfil_webhook_delivery_latency_seconds',
  help: "Time from an event's commit to the receiver's 2xx (first deliveries only; redeliveries and pings excluded).",
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
  registers: [metricsRegistry],
});

const attempts = new Counter({
  name: 'fulfil_webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome: success, http_error, timeout, network, refused_address.',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const webhookBacklogGauge = new Gauge({
  name: 'fulfil_webhook_backlog',
  help: 'Events owed to an endpoint and not yet acknowledged, per endpoint (read at scrape).',
  labelNames: ['endpoint_id'] as const,
  registers: [metricsRegistry],
});

export const webhookDisabledGauge = new Gauge({
  name: 'fulfil_webhook_endpoints_disabled',
  help: 'Webhook endpoints currently disabled, whatever the reason (read at scrape).',
  registers: [metricsRegistry],
});

export function countWebhookAttempt(outcome: string): void {
  attempts.inc({ outcome });
}

export function observeWebhookLatency(seconds: number): void {
  deliveryLatency.observe(Math.max(0, seconds));
}

/** Sets the two gauges from Postgres, which every process shares, at scrape time. */
export async function readWebhookGauges(ex: Executor): Promise<void> {
  const [backlog, disabled] = await Promise.all([
    query<{ endpointId: number; n: number }>(
      ex,
      sql`select endpoint_id::int as "endpointId", count(*)::int as n from webhook_deliveries where delivered_at is null group by endpoint_id`,
    ),
    query<{ n: number }>(ex, sql`select count(*)::int as n from webhook_endpoints where not enabled`),
  ]);
  webhookBacklogGauge.reset();
  for (const row of backlog) webhookBacklogGauge.set({ endpoint_id: String(row.endpointId) }, row.n);
  webhookDisabledGauge.set(disabled[0]?.n ?? 0);
}
