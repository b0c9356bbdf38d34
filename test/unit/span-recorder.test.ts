import { InMemorySpanExporter, SimpleSpanProcessor, TraceIdRatioBasedSampler, SamplingDecision } from '@opentelemetry/sdk-trace-base';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { describe, expect, it } from 'vitest';
import { KIND, startRecordedSpan, type Recorder } from '../../src/telemetry/span-recorder.ts';
import { samplerFromEnv } from '../../src/telemetry/trace-sampler.ts';

function recorderWith(env: NodeJS.ProcessEnv = {}) {
  const exporter = new InMemorySpanExporter();
  const recorder: Recorder = {
    processor: new SimpleSpanProcessor(exporter),
    resource: resourceFromAttributes({ 'service.name': 'fulfil-test' }),
    instrumentationScope: { name: 'fulfil' },
    sampler: samplerFromEnv(env),
  };
  return { exporter, recorder };
}

describe('recorded spans', () => {
  it('a root and its children share one trace, name their parents and reach the exporter once each', () => {
    const { exporter, recorder } = recorderWith();
    const root = startRecordedSpan(recorder, 'POST /x', KIND.SERVER, undefined, { 'fulfil.command': 'order.accept' });
    const remote = { ...root.spanContext(), isRemote: true };
    const child = startRecordedSpan(recorder, 'command order.accept', KIND.CONSUMER, remote, {});
    const tx = startRecordedSpan(recorder, 'db transaction', KIND.INTERNAL, child.spanContext(), {});
    tx.end();
    child.setAttributes({ 'fulfil.outcome': 'succeeded', absent: undefined });
    child.end();
    root.end();
    root.end(); // a second end is ignored, as the SDK ignores it

    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['db transaction', 'command order.accept', 'POST /x']);
    const [t, c, r] = spans as [(typeof spans)[0], (typeof spans)[0], (typeof spans)[0]];
    expect(r.spanContext().traceId).toMatch(/^[\da-f]{32}$/);
    expect(r.spanContext().spanId).toMatch(/^[\da-f]{16}$/);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(new Set(spans.map((s) => s.spanContext().spanId)).size).toBe(3);
    expect(r.parentSpanContext).toBeUndefined();
    expect(c.parentSpanContext).toMatchObject({ spanId: r.spanContext().spanId, isRemote: true });
    expect(t.parentSpanContext?.spanId).toBe(c.spanContext().spanId);
    expect(r.kind).toBe(SpanKind.SERVER);
    expect(c.kind).toBe(SpanKind.CONSUMER);
    expect(c.attributes).toEqual({ 'fulfil.outcome': 'succeeded' });
    expect(r.resource.attributes['service.name']).toBe('fulfil-test');
    const ns = (hr: [number, number]) => BigInt(hr[0]) * 1_000_000_000n + BigInt(hr[1]);
    for (const s of spans) {
      expect(s.ended).toBe(true);
      expect(s.endTime[1]).toBeLessThan(1e9);
      expect(ns(s.endTime)).toBeGreaterThanOrEqual(ns(s.startTime));
      expect(ns(s.duration)).toBe(ns(s.endTime) - ns(s.startTime));
    }
    // The root started first and ended last.
    expect(ns(r.startTime)).toBeLessThanOrEqual(ns(t.startTime));
    expect(ns(r.endTime)).toBeGreaterThanOrEqual(ns(t.endTime));
    expect(Math.abs(Number(ns(r.startTime) / 1_000_000n) - Date.now())).toBeLessThan(5_000);
  });

  it('copies attributes, so a shared constant given at start is never changed', () => {
    const { recorder } = recorderWith();
    const shared = Object.freeze({ 'db.system.name': 'postgresql' });
    const span = startRecordedSpan(recorder, 'db transaction', KIND.INTERNAL, undefined, shared);
    span.setAttributes({ 'db.operation.batch.size': 3 });
    expect(span.attributes).toEqual({ 'db.system.name': 'postgresql', 'db.operation.batch.size': 3 });
    expect(shared).toEqual({ 'db.system.name': 'postgresql' });
  });

  it('a failure is an exception event and an error status', () => {
    const { exporter, recorder } = recorderWith();
    const span = startRecordedSpan(recorder, 'command x', KIND.CONSUMER, undefined, {});
    span.fail(Object.assign(new Error('connection ended'), { code: '57P01' }));
    span.end();
    const [s] = exporter.getFinishedSpans();
    expect(s!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'connection ended' });
    expect(s!.events).toHaveLength(1);
    expect(s!.events[0]).toMatchObject({
      name: 'exception',
      attributes: { 'exception.type': '57P01', 'exception.message': 'connection ended' },
    });
  });

  it('follows the parent’s decision by default: a child of an unsampled context is not exported', () => {
    const { exporter, recorder } = recorderWith();
    const unsampled = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 0, isRemote: true };
    const child = startRecordedSpan(recorder, 'command x', KIND.CONSUMER, unsampled, { a: 1 });
    expect(child.spanContext()).toMatchObject({ traceId: unsampled.traceId, traceFlags: 0 });
    child.setAttributes({ b: 2 });
    child.end();
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });

  it('always_off records nothing; always_on ignores an unsampled parent', () => {
    const off = recorderWith({ OTEL_TRACES_SAMPLER: 'always_off' });
    const root = startRecordedSpan(off.recorder, 'POST /x', KIND.SERVER, undefined, {});
    root.end();
    expect(root.spanContext().traceFlags).toBe(0);
    expect(off.exporter.getFinishedSpans()).toHaveLength(0);

    const on = recorderWith({ OTEL_TRACES_SAMPLER: 'always_on' });
    const unsampled = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 0, isRemote: true };
    startRecordedSpan(on.recorder, 'command x', KIND.CONSUMER, unsampled, {}).end();
    expect(on.exporter.getFinishedSpans()).toHaveLength(1);
  });
});

describe('sampling from the standard variables', () => {
  it('reads each sampler the SDK knows, and falls back to parentbased_always_on', () => {
    expect(samplerFromEnv({}).followsParent).toBe(true);
    expect(samplerFromEnv({}).sampleRoot('0af7651916cd43dd8448eb211c80319c')).toBe(true);
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'always_on' }).followsParent).toBe(false);
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' }).sampleRoot('0af7651916cd43dd8448eb211c80319c')).toBe(false);
    expect(
      samplerFromEnv({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }).sampleRoot('ffffffffffffffffffffffffffffffff'),
    ).toBe(false);
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'sometimes' }, warn).description).toBe('parentbased_always_on');
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '7' }, warn).description).toBe('traceidratio 1');
    expect(warnings).toEqual([
      'OTEL_TRACES_SAMPLER=sometimes is not a sampler; using parentbased_always_on',
      'OTEL_TRACES_SAMPLER_ARG=7 is not a ratio from 0 to 1; using 1',
    ]);
  });

  it('samples by ratio exactly as the SDK’s TraceIdRatioBased sampler, id for id', () => {
    for (const ratio of [0.05, 0.25, 0.5, 0.9]) {
      const ours = samplerFromEnv({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: String(ratio) });
      const sdk = new TraceIdRatioBasedSampler(ratio);
      let sampled = 0;
      for (let i = 0; i < 2000; i++) {
        const traceId = Array.from({ length: 32 }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('');
        const expected = sdk.shouldSample(ROOT_CONTEXT, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED;
        expect(ours.sampleRoot(traceId), traceId).toBe(expected);
        if (expected) sampled++;
      }
      expect(sampled / 2000).toBeGreaterThan(ratio - 0.06);
      expect(sampled / 2000).toBeLessThan(ratio + 0.06);
    }
  });
});
