import { readFileSync } from 'node:fs';
import path from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventFeed } from '../../src/db/schema.ts';
import { outboxState } from '../../src/telemetry/metrics-scrape.ts';
import { apiClient } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** Every queue the service keeps, as `fulfil jobs` and the queue board name them. */
const SERVICE_QUEUES = ['commands', 'inventory', 'fulfil-webhooks'];

interface Family {
  name: string;
  type: string;
}

/** The text parsed by a Prometheus text-format parser (it throws on any malformed line). */
function parse(text: string): Family[] {
  return parsePrometheusTextFormat(text) as Family[];
}

/** The value of one sample, by its full name and exact label set (in any order). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.keys(got).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => got[k] === v))
      return Number(m[3]);
  }
  return undefined;
}

async function waitFor<T>(fn: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('Prometheus metrics', () => {
  let t: TestService;
  let worker: TestService;
  const scrape = async (base: string) => (await fetch(`${base}/metrics`)).text();

  beforeAll(async () => {
    t = await startTestService();
    await t.seed(baseFixture());
    // A worker-only process on the same database and prefix serves its own /metrics.
    worker = await startTestService({ roles: { api: false, worker: true }, db: t.db, prefix: t.prefix });
  });
  afterAll(async () => {
    await worker?.stop();
    await t?.stop();
  });

  it('serves the text format with charset, each family once, default process metrics included', async () => {
    await fetch(`${t.url}/livez`);
    const res = await fetch(`${t.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    const families = parse(text);
    const names = families.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    const typeOf = (n: string) => families.find((f) => f.name === n)?.type;
    expect(typeOf('process_cpu_seconds_total')).toBe('COUNTER');
    expect(typeOf('process_resident_memory_bytes')).toBe('GAUGE');
    expect(typeOf('nodejs_eventloop_lag_seconds')).toBe('GAUGE');
    expect(typeOf('nodejs_heap_size_used_bytes')).toBe('GAUGE');
    expect(typeOf('fulfil_http_request_duration_seconds')).toBe('HISTOGRAM');
    expect(typeOf('fulfil_command_duration_seconds')).toBe('HISTOGRAM');
    expect(typeOf('fulfil_shipment_transitions_total')).toBe('COUNTER');
    expect(typeOf('fulfil_outbox_backlog')).toBe('GAUGE');
    expect(typeOf('fulfil_outbox_relay_lag_seconds')).toBe('GAUGE');
    expect(typeOf('bullmq_job_count')).toBe('GAUGE');
    expect(typeOf('bullmq_job_completed_total')).toBe('COUNTER');
    expect(typeOf('bullmq_job_failed_total')).toBe('COUNTER');
    for (const queue of SERVICE_QUEUES) expect(sample(text, 'bullmq_job_count', { queue, state: 'failed', prefix: t.prefix })).toBe(0);
  });

  it('times HTTP requests by route and status in a histogram with buckets, count and sum', async () => {
    const call = apiClient(t.url);
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const text = await scrape(t.url);
    const labels = { method: 'POST', route: '/v9/orders/:id/accept', status: '200' };
    expect(sample(text, 'fulfil_http_request_duration_seconds_count', labels)).toBe(1);
    expect(sample(text, 'fulfil_http_request_duration_seconds_sum', labels)).toBeGreaterThan(0);
    expect(sample(text, 'fulfil_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(1);
    expect(sample(text, 'fulfil_http_request_duration_seconds_bucket', { ...labels, le: '30' })).toBe(1);
    const buckets = text
      .split('\n')
      .filter((l) => l.startsWith('fulfil_http_request_duration_seconds_bucket{') && l.includes('route="/v9/orders/:id/accept"'));
    expect(buckets.length).toBe(13); // 12 bounds and +Inf
  });

  it('times commands by name and outcome, counts transitions, and totals jobs', async () => {
    const call = apiClient(t.url);
    const shipment = (await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd2}/accept`, { reviewer_id: 100 })).body.shipments[0].id;
    const live = (await call(SELLER, 'PUT', `/v9/shipments/${shipment}`, { mobile_transfer_type: 'XMobile' })).body.id;
    // Accepting it again is a domain refusal: an outcome of its own.
    expect((await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd2}/accept`, { reviewer_id: 100 })).status).toBe(422);
    await call(SELLER, 'PUT', `/v9/shipments/${live}/complete`);
    // Commands run in whichever service took the job and the relay counts transitions where it
    // runs; both services of this test share one process, hence one registry: one scrape has all.
    const scrapes = async () => [await scrape(t.url)];
    const sum = (texts: string[], name: string, labels: Record<string, string>) =>
      texts.reduce((a, x) => a + (sample(x, name, labels) ?? 0), 0);
    const text = await waitFor(async () => {
      const s = await scrapes();
      return sum(s, 'fulfil_shipment_transitions_total', { from: 'XMobile/pending', event: 'completed', to: 'XMobile/delivered' }) >= 1
        ? s
        : undefined;
    }, 'the completed transition to be relayed');
    expect(sum(text, 'fulfil_shipment_transitions_total', { from: 'none', event: 'created', to: 'TBD/pending' })).toBeGreaterThanOrEqual(1);
    expect(
      sum(text, 'fulfil_shipment_transitions_total', { from: 'TBD/pending', event: 'updated', to: 'XMobile/pending' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sum(text, 'fulfil_command_duration_seconds_count', { command: 'order.accept', outcome: 'succeeded' })).toBeGreaterThanOrEqual(2);
    expect(sum(text, 'fulfil_command_duration_seconds_count', { command: 'order.accept', outcome: 'refused' })).toBe(1);
    expect(sum(text, 'fulfil_command_duration_seconds_count', { command: 'shipment.complete', outcome: 'succeeded' })).toBe(1);
    expect(sum(text, 'fulfil_command_duration_seconds_bucket', { command: 'shipment.complete', outcome: 'succeeded', le: '+Inf' })).toBe(1);
    // BullMQ's own totals count every finished job, whatever removeOnComplete keeps.
    expect(sample(await scrape(t.url), 'bullmq_job_completed_total', { queue: 'commands', prefix: t.prefix })).toBeGreaterThanOrEqual(5);
  });

  it('the Grafana dashboard asks only for metrics the service exposes', async () => {
    const dashboard = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../docs/grafana-dashboard.json'), 'utf8')) as {
      panels: Array<{ targets: Array<{ expr: string }> }>;
    };
    const families = new Set(parse(await scrape(t.url)).map((f) => f.name));
    const asked = dashboard.panels.flatMap((p) => p.targets.flatMap((x) => x.expr.match(/\b(?:fulfil|bullmq|process|nodejs)_\w+/g) ?? []));
    expect(asked.length).toBeGreaterThan(10);
    for (const name of asked) expect(families.has(name) || families.has(name.replace(/_(bucket|count|sum)$/, '')), name).toBe(true);
  });

  it('a worker-only process serves /metrics and /livez on its own port', async () => {
    expect(worker.service.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(worker.service.metricsUrl).not.toBe(t.url);
    expect(await (await fetch(`${worker.service.metricsUrl}/livez`)).json()).toEqual({ status: 'ok' });
    const res = await fetch(`${worker.service.metricsUrl}/metrics`);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    const names = parse(text).map((f) => f.name);
    expect(names).toEqual(
      expect.arrayContaining(['process_cpu_seconds_total', 'fulfil_command_duration_seconds', 'fulfil_outbox_backlog', 'bullmq_job_count']),
    );
    // The same queues as the API's scrape: an operator scraping only workers sees the webhook backlog too.
    for (const queue of SERVICE_QUEUES) expect(sample(text, 'bullmq_job_count', { queue, state: 'failed', prefix: t.prefix })).toBe(0);
    expect((await fetch(`${worker.service.metricsUrl}/v9/inventory`)).status).toBe(404);
  });
});

describe('outbox gauges', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('read the backlog and the age of the oldest unrelayed event', async () => {
    expect(await outboxState(db.database.db)).toEqual({ backlog: 0, lagSeconds: 0 });
    // A relayed event has a position: only the two waiting count, the older one's age is the lag.
    const sql = db.database.sql!;
    const event = async (id: string, seq: number, at: Date) => {
      const [row] =
        await sql`insert into shipment_events (event_id, order_id, seq, kind, to_type, to_state, actor_brokerage_id, actor_role, command_id, at)
        values (${id}, 1, ${seq}, 'created', 'TBD', 'pending', 1, 'seller', ${`c-${id}`}, ${at.toISOString()}::timestamptz) returning id`;
      return Number(row!.id);
    };
    const done = await event('e-done', 1, new Date(Date.now() - 3_600_000));
    const old = await event('e-old', 2, new Date(Date.now() - 60_000));
    const recent = await event('e-new', 3, new Date());
    const parties = { sellerBrokerageId: 1, buyerBrokerageId: 2 };
    await db.database.db.insert(eventFeed).values([
      { eventRowId: done, ...parties, position: 1 },
      { eventRowId: old, ...parties },
      { eventRowId: recent, ...parties },
    ]);
    const state = await outboxState(db.database.db);
    expect(state.backlog).toBe(2);
    expect(state.lagSeconds).toBeGreaterThanOrEqual(59);
    expect(state.lagSeconds).toBeLessThan(120);
  });
});
