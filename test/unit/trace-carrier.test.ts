import { context, createTraceState, propagation, ROOT_CONTEXT, trace, TraceFlags, type SpanContext } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carrierOf, spanContextOf } from '../../src/telemetry/trace-carrier.ts';

/** The job's trace carrier says what the SDK's W3C propagator says, both ways. */
describe('trace carrier', () => {
  // The SDK's default propagator: W3C trace context (and baggage, which these contexts have none of).
  beforeAll(() => new NodeTracerProvider().register({ contextManager: null }));
  afterAll(() => (trace.disable(), propagation.disable(), context.disable()));

  const sampled: SpanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED };
  const viaSdk = (sc: SpanContext) => {
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpanContext(ROOT_CONTEXT, sc), carrier);
    return carrier;
  };

  it('writes the traceparent and tracestate the W3C propagator writes', () => {
    for (const sc of [
      sampled,
      { ...sampled, traceFlags: TraceFlags.NONE },
      { ...sampled, traceState: createTraceState('vendor=a,other=b') },
    ]) {
      expect(JSON.parse(carrierOf(sc)!)).toEqual(viaSdk(sc));
    }
    expect(carrierOf({ ...sampled, traceId: '0'.repeat(32) })).toBeUndefined();
  });

  it('reads back what it and the propagator wrote, and nothing malformed', () => {
    const state = createTraceState('vendor=a');
    const back = spanContextOf(carrierOf({ ...sampled, traceState: state }), createTraceState)!;
    expect(back).toMatchObject({ ...sampled, isRemote: true });
    expect(back.traceState?.serialize()).toBe('vendor=a');
    const extracted = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, viaSdk(sampled)));
    expect(spanContextOf(JSON.stringify(viaSdk(sampled)), createTraceState)).toEqual(extracted);
    for (const bad of [
      undefined,
      '',
      'not json',
      '{}',
      '{"traceparent":5}',
      `{"traceparent":"ff-${sampled.traceId}-${sampled.spanId}-01"}`,
      `{"traceparent":"00-${'0'.repeat(32)}-${sampled.spanId}-01"}`,
      `{"traceparent":"00-${sampled.traceId}-${sampled.spanId}-01-extra"}`,
    ]) {
      expect(spanContextOf(bad, createTraceState), String(bad)).toBeUndefined();
    }
  });
});
