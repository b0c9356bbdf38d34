import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { answerOutcome } from '../commands/command-outcome.ts';

/**
 * The process's Prometheus metrics. One registry per process: the HTTP hook, the workers and the
 * outbox relay record into it wherever they run, and /metrics (API port, or METRICS_PORT on a
 * worker) renders it. Families that describe the whole fleet (queue counts, outbox) are read
 * at scrape time instead (metrics-scrape.ts).
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** From 5 ms to 30 s: an API call answers in milliseconds, a synchronous command waits up to COMMAND_WAIT_MS. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const httpDuration = new Histogram({
  name: 'fulfil_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

const commandDuration = new Histogram({
  name: 'fulfil_command_duration_seconds',
  help: 'Time a worker spent on one attempt of a command, by command and outcome (succeeded, refused, error).',
  labelNames: ['command', 'outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

const shipmentTransitions = new Counter({
  name: 'fulfil_shipment_transitions_total',
  help: 'Shipment transitions published to the events queue, by from (type/state), event and to (type/state).',
  labelNames: ['from', 'event', 'to'] as const,
  registers: [metricsRegistry],
});

export const outboxBacklogGauge = new Gauge({
  name: 'fulfil_outbox_backlog',
  help: 'Events written but not yet relayed to the feeds, webhooks and events stream (read at scrape).',
  registers: [metricsRegistry],
});

export const outboxLagGauge = new Gauge({
  name: 'fulfil_outbox_relay_lag_seconds',
  help: 'Age of the oldest event not yet relayed; 0 when the outbox is empty (read at scrape).',
  registers: [metricsRegistry],
});

export const ordersOverdueGauge = new Gauge({
  name: 'fulfil_orders_overdue',
  help: 'Open orders (pending, accepted, cancel_proposed) whose deadline (deliver_by) has passed, by mode (live, test), from Postgres (read at scrape).',
  labelNames: ['mode'] as const,
  registers: [metricsRegistry],
});

export const deliveryIssuesGauge = new Gauge({
  name: 'fulfil_delivery_issues',
  help: 'Delivery issues waiting on someone, by state: open (on the seller, until respond_by) and escalated (on an operator), and mode (live, test), from Postgres (read at scrape).',
  labelNames: ['state', 'mode'],
  registers: [metricsRegistry],
});

const timerLateness = new Histogram({
  name: 'fulfil_timer_lateness_seconds',
  help: 'How long after its time a deadline timer emitted its event (shipment.due_soon, shipment.overdue).',
  labelNames: ['kind'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 15, 60, 300],
  registers: [metricsRegistry],
});

export function observeTimerLateness(kind: string, seconds: number): void {
  timerLateness.observe({ kind }, Math.max(0, seconds));
}

export const feedLongPollsGauge = new Gauge({
  name: 'fulfil_feed_long_polls',
  help: 'Requests to GET /v9/events waiting for an event in this process (long polls).',
  registers: [metricsRegistry],
});

/**
 * What one attempt of a command amounts to: an answer, named as the command's outcome
 * (succeeded, refused), or a thrown error, after which the attempt is retried (a command whose
 * attempts all end so is `failed`).
 */
export type AttemptOutcome = 'succeeded' | 'refused' | 'error';

function attemptOutcome(status: number | undefined): AttemptOutcome {
  if (status === undefined) return 'error';
  return answerOutcome(status);
}

export function observeHttp(method: string, route: string, status: number, seconds: number): void {
  httpDuration.observe({ method, route, status: String(status) }, seconds);
}

export function observeCommand(name: string, outcome: AttemptOutcome | number, seconds: number): void {
  const label = typeof outcome === 'number' ? attemptOutcome(outcome) : outcome;
  commandDuration.observe({ command: name, outcome: label }, Math.max(0, seconds));
}

export function countTransition(from: string, event: string, to: string): void {
  shipmentTransitions.inc({ from, event, to });
}

/** The shape of a shipment event message, as far as the transition counter reads it. */
interface TransitionMessage {
  kind?: string;
  from_type?: string | null;
  from_state?: string | null;
  to_type?: string;
  to_state?: string;
}

/** Counts relayed events; `created` has no from (the shipment did not exist). */
export function countTransitions(messages: readonly unknown[]): void {
  for (const m of messages as TransitionMessage[]) {
    const from = m.from_type ? `${m.from_type}/${m.from_state}` : 'none';
    countTransition(from, m.kind ?? 'unknown', `${m.to_type}/${m.to_state}`);
  }
}

/** Adapter for the HTTP hook in app.ts, which records through `ops.metrics.observe`. */
export class HttpMetrics {
  observe(method: string, route: string, status: number, seconds: number): void {
    observeHttp(method, route, status, seconds);
  }
}

export const commandsUnfinishedGauge = new Gauge({
  name: 'fulfil_commands_unfinished',
  help: 'Commands accepted but not finished (queued or running), from Postgres (read at scrape).',
  registers: [metricsRegistry],
});

export const commandsOldestUnfinishedGauge = new Gauge({
  name: 'fulfil_commands_oldest_unfinished_seconds',
  help: 'Age of the oldest command still queued or running; 0 when none (read at scrape).',
  registers: [metricsRegistry],
});

export const queueWorkersGauge = new Gauge({
  name: 'fulfil_queue_workers',
  help: 'Workers connected to Redis and consuming the queue, fleet-wide (BullMQ getWorkersCount, read at scrape); prefix tells command shards apart.',
  labelNames: ['queue', 'prefix'] as const,
  registers: [metricsRegistry],
});

export const dependencyUpGauge = new Gauge({
  name: 'fulfil_dependency_up',
  help: 'Whether Postgres and Redis answered this scrape (1) or not (0): what /readyz checks.',
  labelNames: ['dependency'] as const,
  registers: [metricsRegistry],
});

const dispatchCleanupFailures = new Counter({
  name: 'fulfil_dispatch_cleanup_failures_total',
  help: 'Commands Redis refused whose row could not be removed again: each stays recorded, was answered 202, and runs once Redis is back (lost-command recovery).',
  registers: [metricsRegistry],
});

export function countDispatchCleanupFailure(): void {
  dispatchCleanupFailures.inc();
}

/** 1 while this process runs the outbox relay (holds the relay lock); fleet-wide, exactly one should. */
export const relayActiveGauge = new Gauge({
  name: 'fulfil_outbox_relay_active',
  help: 'Whether this process is the active outbox relay (1) or a standby (0).',
  registers: [metricsRegistry],
});
