import { Counter, Gauge, Histogram } from 'prom-client';
import { sql } from 'drizzle-orm';
import { query, type Executor } from '../db/client.ts';
import { METRIC_MODES, modeCounts, modeOf } from './metric-modes.ts';
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
  help: "Events owed to an endpoint and not yet acknowledged, per endpoint, with its brokerage's mode (live, test) (read at scrape).",
  labelNames: ['endpoint_id', 'mode'] as const,
  registers: [metricsRegistry],
});

export const webhookDisabledGauge = new Gauge({
  name: 'fulfil_webhook_endpoints_disabled',
  help: "Webhook endpoints currently disabled, whatever the reason, by their brokerage's mode (live, test) (read at scrape).",
  labelNames: ['mode'] as const,
  registers: [metricsRegistry],
});

/** What the process's webhook delivery reports at scrape time (webhook-worker.ts registers it). */
let scheduling: { callsInFlight: () => number; breakersOpen: () => number } | undefined;

export function reportWebhookScheduling(source: typeof scheduling): void {
  scheduling = source;
}

new Gauge({
  name: 'fulfil_webhook_breakers_open',
  help: "Endpoints whose circuit breaker is open in this process (timeouts in a row, or a receiver's Retry-After): their jobs wait in the queue, not in a call slot.",
  registers: [metricsRegistry],
  collect() {
    this.set(scheduling?.breakersOpen() ?? 0);
  },
});

new Gauge({
  name: 'fulfil_webhook_calls_in_flight',
  help: "Receivers' calls in flight in this process (at most WEBHOOK_CONCURRENCY).",
  registers: [metricsRegistry],
  collect() {
    this.set(scheduling?.callsInFlight() ?? 0);
  },
});

const deferred = new Counter({
  name: 'fulfil_webhook_jobs_deferred_total',
  help: "Webhook jobs put back in the queue for later instead of holding a call slot: reason breaker (the endpoint's breaker is open), retry_after (its receiver asked to wait), busy (its brokerage has its share of the slots and jobs waiting).",
  labelNames: ['reason'] as const,
  registers: [metricsRegistry],
});

export function countWebhookDeferred(reason: string): void {
  deferred.inc({ reason });
}

export function countWebhookAttempt(outcome: string): void {
  attempts.inc({ outcome });
}

export function observeWebhookLatency(seconds: number): void {
  deliveryLatency.observe(Math.max(0, seconds));
}

/** Sets the two gauges from Postgres, which every process shares, at scrape time. */
export async function readWebhookGauges(ex: Executor): Promise<void> {
  const [backlog, disabled] = await Promise.all([
    query<{ endpointId: number; livemode: boolean; n: number }>(
      ex,
      sql`select d.endpoint_id::int as "endpointId", b.livemode, d.n from
        (select endpoint_id, count(*)::int as n from webhook_deliveries where delivered_at is null group by endpoint_id) d
        join webhook_endpoints e on e.id = d.endpoint_id join brokerages b on b.id = e.brokerage_id`,
    ),
    query<{ livemode: boolean; n: number }>(
      ex,
      sql`select b.livemode, count(*)::int as n from webhook_endpoints e join brokerages b on b.id = e.brokerage_id
        where not e.enabled group by b.livemode`,
    ),
  ]);
  webhookBacklogGauge.reset();
  for (const row of backlog) webhookBacklogGauge.set({ endpoint_id: String(row.endpointId), mode: modeOf(row.livemode) }, row.n);
  const off = modeCounts(disabled);
  for (const mode of METRIC_MODES) webhookDisabledGauge.set({ mode }, off[mode]);
}
