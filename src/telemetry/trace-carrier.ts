import type { SpanContext } from '@opentelemetry/api';

/**
 * The trace context a job carries in job.opts.telemetry.metadata: JSON of the W3C headers,
 * {"traceparent": …, "tracestate": …}, as bullmq-otel writes it too. Written and read here
 * rather than through the global propagator: that one is a composite (trace context and
 * baggage, which these jobs never carry) that builds a Context object and a setter/getter call
 * per header each way, for a format that never changes. The rules are the W3C propagator's
 * (@opentelemetry/core): version ff and all-zero ids refused, a version 00 header with more
 * parts refused, later versions read by their first four parts.
 */
const TRACEPARENT = /^\s?((?!ff)[\da-f]{2})-((?![0]{32})[\da-f]{32})-((?![0]{16})[\da-f]{16})-([\da-f]{2})(-.*)?\s?$/;

/** The carrier for a span's context; undefined for an invalid context (a non-recording span of nothing). */
export function carrierOf(context: SpanContext): string | undefined {
  if (!TRACE_ID.test(context.traceId) || !SPAN_ID.test(context.spanId)) return undefined;
  const flags = context.traceFlags & 0xff;
  const traceparent = `00-${context.traceId}-${context.spanId}-${flags < 16 ? '0' : ''}${flags.toString(16)}`;
  const tracestate = context.traceState?.serialize();
  // JSON.stringify only for a tracestate, whose text could need escaping; ids and flags are hex.
  return tracestate ? JSON.stringify({ traceparent, tracestate }) : `{"traceparent":"${traceparent}"}`;
}

const TRACE_ID = /^(?![0]{32})[\da-f]{32}$/;
const SPAN_ID = /^(?![0]{16})[\da-f]{16}$/;

/**
 * The remote span context a carrier holds; undefined for none, or for one that does not parse
 * (a job is never refused over its trace context).
 */
export function spanContextOf(
  metadata: string | undefined,
  traceState: (text: string) => SpanContext['traceState'],
): SpanContext | undefined {
  if (!metadata) return undefined;
  let carrier: { traceparent?: unknown; tracestate?: unknown } | null;
  try {
    carrier = JSON.parse(metadata) as typeof carrier;
  } catch {
    return undefined;
  }
  if (typeof carrier?.traceparent !== 'string') return undefined;
  const m = TRACEPARENT.exec(carrier.traceparent);
  if (!m || (m[1] === '00' && m[5])) return undefined;
  const context: SpanContext = { traceId: m[2]!, spanId: m[3]!, traceFlags: parseInt(m[4]!, 16), isRemote: true };
  if (typeof carrier.tracestate === 'string' && carrier.tracestate) context.traceState = traceState(carrier.tracestate);
  return context;
}
