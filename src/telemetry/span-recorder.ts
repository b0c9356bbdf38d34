import { randomFillSync } from 'node:crypto';
import type { Attributes, AttributeValue, HrTime, Link, SpanContext, SpanStatus } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-base';
import type { Resource } from '@opentelemetry/resources';
import type { RootSampler } from './trace-sampler.ts';

/**
 * Spans recorded by hand, handed to the SDK's span processors and exporters only when they end.
 * The SDK's own tracer and span (per span: sampler and context lookups through the API's
 * registry, attribute validation and limits, clock anchoring, self-metrics, a Context object
 * per parent) were about two thirds of tracing's CPU per command, for three spans whose names,
 * parents and attributes this service makes itself (BENCHMARKS.md, tracing overhead). A span
 * here is the SDK's ReadableSpan as it stands, so the SDK's batch processor, OTLP exporters and
 * in-memory exporter take it unchanged.
 */

/** SpanKind and SpanStatusCode of the API (stable numbers), without loading it while tracing is off. */
export const KIND = { INTERNAL: 0, SERVER: 1, CONSUMER: 4 } as const;
const STATUS_ERROR = 2;
const SAMPLED = 1;

const UNSET: SpanStatus = Object.freeze({ code: 0 });
const NONE: never[] = Object.freeze([]) as never[];

/** Milliseconds since the epoch, sub-millisecond, from the monotonic clock (never steps back). */
const now = (): number => performance.timeOrigin + performance.now();

function hrTime(ms: number): HrTime {
  let seconds = Math.floor(ms / 1000);
  let nanos = Math.round((ms - seconds * 1000) * 1e6);
  if (nanos >= 1e9) {
    seconds += 1;
    nanos -= 1e9;
  }
  return [seconds, nanos];
}

/** Random hex ids from a pooled buffer: one randomFillSync per 256 span ids, not per id. */
const pool = Buffer.allocUnsafe(4096);
let poolAt = pool.length;
function randomHex(bytes: number): string {
  for (;;) {
    if (poolAt + bytes > pool.length) {
      randomFillSync(pool);
      poolAt = 0;
    }
    const hex = pool.toString('hex', poolAt, (poolAt += bytes));
    if (!/^0+$/.test(hex)) return hex; // an all-zero id is invalid in W3C trace context
  }
}

export interface Recorder {
  readonly processor: SpanProcessor;
  readonly resource: Resource;
  readonly instrumentationScope: { name: string; version?: string; schemaUrl?: string };
  readonly sampler: RootSampler;
}

export class RecordedSpan implements ReadableSpan {
  readonly attributes: Attributes = {};
  readonly links: Link[] = NONE;
  events: TimedEvent[] = NONE;
  status: SpanStatus = UNSET;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  private readonly startMs = now();
  private endMs = -1;

  constructor(
    private readonly recorder: Recorder,
    readonly name: string,
    readonly kind: number,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    attributes: Attributes,
  ) {
    if (this.isSampled()) this.setAttributes(attributes);
  }

  spanContext(): SpanContext {
    return this.context;
  }

  private isSampled(): boolean {
    return (this.context.traceFlags & SAMPLED) !== 0;
  }

  /** Copies the values (never the caller's object); an unset value is skipped, as the SDK drops it. */
  setAttributes(attributes: Attributes): this {
    if (this.endMs >= 0 || !this.isSampled()) return this;
    for (const key in attributes) {
      const value: AttributeValue | undefined = attributes[key];
      if (value !== undefined && value !== null) this.attributes[key] = value;
    }
    return this;
  }

  /** Records the error as the SDK does (an `exception` event) and marks the span failed. */
  fail(err: unknown): void {
    if (this.endMs >= 0 || !this.isSampled()) return;
    const e = err as { name?: unknown; message?: unknown; stack?: unknown; code?: unknown } | null;
    const attributes: Attributes = {};
    if (typeof err === 'string') attributes['exception.message'] = err;
    else if (e) {
      const type = e.code !== undefined ? String(e.code) : e.name;
      if (typeof type === 'string') attributes['exception.type'] = type;
      if (typeof e.message === 'string') attributes['exception.message'] = e.message;
      if (typeof e.stack === 'string') attributes['exception.stacktrace'] = e.stack;
    }
    this.events = [{ name: 'exception', attributes, time: hrTime(now()), droppedAttributesCount: 0 }];
    this.status = { code: STATUS_ERROR, message: typeof e?.message === 'string' ? e.message : String(err) };
  }

  end(): void {
    if (this.endMs >= 0) return;
    this.endMs = now();
    if (this.isSampled()) this.recorder.processor.onEnd(this);
  }

  get startTime(): HrTime {
    return hrTime(this.startMs);
  }
  get endTime(): HrTime {
    return hrTime(this.endMs < 0 ? this.startMs : this.endMs);
  }
  /** endTime − startTime exactly, from the two rounded times (not the float difference). */
  get duration(): HrTime {
    const [s0, n0] = this.startTime;
    const [s1, n1] = this.endTime;
    return n1 >= n0 ? [s1 - s0, n1 - n0] : [s1 - s0 - 1, n1 - n0 + 1e9];
  }
  get ended(): boolean {
    return this.endMs >= 0;
  }
  get resource(): Resource {
    return this.recorder.resource;
  }
  get instrumentationScope(): Recorder['instrumentationScope'] {
    return this.recorder.instrumentationScope;
  }
}

/**
 * Starts a span: a root (parent undefined) or a child of a span of this process or of a context a
 * job carried. A child shares its parent's trace and, when the sampler follows parents (the
 * default), its sampling decision; a root is sampled by the configured root sampler.
 */
export function startRecordedSpan(
  recorder: Recorder,
  name: string,
  kind: number,
  parent: SpanContext | undefined,
  attributes: Attributes,
): RecordedSpan {
  const traceId = parent ? parent.traceId : randomHex(16);
  const sampled = parent && recorder.sampler.followsParent ? (parent.traceFlags & SAMPLED) !== 0 : recorder.sampler.sampleRoot(traceId);
  const context: SpanContext = { traceId, spanId: randomHex(8), traceFlags: sampled ? SAMPLED : 0 };
  if (parent?.traceState) context.traceState = parent.traceState;
  return new RecordedSpan(recorder, name, kind, context, parent, attributes);
}
