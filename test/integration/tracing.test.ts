import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing } from '../../src/telemetry/tracing.ts';
import { apiClient } from '../support/api.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

/**
 * One accept, traced with the SDK's in-memory exporter: one trace from the HTTP request through
 * the BullMQ job (which carries the context in its options) to the worker's command and its
 * transaction (naming its statements), with ids and the outcome as attributes and nothing
 * secret or personal.
 */
describe('traces', () => {
  const exporter = new InMemorySpanExporter();
  let stopTracing: () => Promise<void>;
  let t: TestService;

  beforeAll(async () => {
    stopTracing = await startTracing({ exporter });
    t = await startTestService();
    await t.seed(baseFixture());
  });
  afterAll(async () => {
    await t?.stop();
    await stopTracing?.();
  });

  it('one accept is one span tree with its ids and outcome, and no secret or personal data', async () => {
    const res = await apiClient(t.url)(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    expect(res.status).toBe(200);
    const commandId = res.headers.get('x-command-id')!;
    let spans: ReadableSpan[] = [];
    for (let i = 0; i < 100; i++) {
      spans = exporter.getFinishedSpans();
      if (spans.some((s) => s.attributes['http.route'] !== undefined) && spans.some((s) => s.name === 'command order.accept')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const root = spans.find((s) => s.attributes['fulfil.command_id'] === commandId && s.attributes['http.route'] !== undefined)!;
    expect(root).toBeDefined();
    expect(root.name).toBe('POST /v9/orders/:id/accept');
    expect(parentOf(root)).toBeUndefined();
    expect(root.attributes).toMatchObject({
      'fulfil.order_id': ORDERS.tbd,
      'http.response.status_code': 200,
      'fulfil.command': 'order.accept',
    });
    const trace = spans.filter((s) => s.spanContext().traceId === root.spanContext().traceId);
    const byId = new Map(trace.map((s) => [s.spanContext().spanId, s]));
    const chain = (s: ReadableSpan): string[] => {
      const p = parentOf(s) && byId.get(parentOf(s)!);
      return p ? [p.name, ...chain(p)] : [];
    };

    // Three spans a command: the job carries the context itself, statements are named on the transaction.
    expect(trace.map((s) => s.name).sort()).toEqual(['POST /v9/orders/:id/accept', 'command order.accept', 'db transaction']);
    const command = trace.find((s) => s.name === 'command order.accept')!;
    expect(command.kind).toBe(SpanKind.CONSUMER);
    expect(parentOf(command)).toBe(root.spanContext().spanId);
    expect(command.attributes).toMatchObject({
      'messaging.system': 'bullmq',
      'fulfil.command_id': commandId,
      'fulfil.order_id': ORDERS.tbd,
      'fulfil.outcome': 'succeeded',
      'fulfil.result_status': 200,
    });
    const tx = trace.find((s) => s.name === 'db transaction')!;
    expect(parentOf(tx)).toBe(command.spanContext().spanId);
    expect(chain(tx)).toEqual(['command order.accept', root.name]);
    const statements = tx.attributes['fulfil.db.statements'] as string[];
    expect(statements.length).toBeGreaterThanOrEqual(2);
    expect(tx.attributes['db.operation.batch.size']).toBe(statements.length);
    // The claim first: the command's advisory lock, then its row read (D-145).
    expect(statements.slice(0, 2)).toEqual(['select', 'select commands']);
    for (const name of statements) expect(name).toMatch(/^(select|insert|update|delete|with)( \w+)?$/);
    // The request waited for the worker: its span holds the command's start and the transaction's.
    // Times of different spans are compared to within 1 ms: the SDK pins each span's clock to
    // Date.now() (millisecond steps) when it starts, so two ends microseconds apart can invert.
    const ns = (t: [number, number]) => t[0] * 1e9 + t[1];
    const MS = 1e6;
    expect(ns(command.startTime) + MS).toBeGreaterThanOrEqual(ns(root.startTime));
    expect(ns(root.endTime) + MS).toBeGreaterThanOrEqual(ns(tx.endTime));

    const secrets = [
      SELLER.token,
      SELLER.secret,
      'bo@example.test',
      'Bo Buyer',
      'Ann Reviewer',
      'ann@acme.test',
      'Signature',
      'authorization',
    ];
    const everything = JSON.stringify(
      spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, resource: s.resource.attributes })),
    );
    for (const secret of secrets) expect(everything.toLowerCase(), secret).not.toContain(secret.toLowerCase());
  });
});
