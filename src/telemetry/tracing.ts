import type { Attributes, SpanContext } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Database, SqlTx } from '../db/client.ts';
import { KIND, startRecordedSpan, type RecordedSpan, type Recorder } from './span-recorder.ts';
import { carrierOf, spanContextOf } from './trace-carrier.ts';
import { samplerFromEnv } from './trace-sampler.ts';

/**
 * OpenTelemetry traces, off unless the standard variables ask for them
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; OTEL_SDK_DISABLED=true wins;
 * OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER(_ARG), OTEL_BSP_* and the exporter's own variables).
 * Nothing of the SDK is loaded while they are off: the hooks below then only call through, so
 * the untraced path pays one branch. Spans are recorded by span-recorder.ts and handed to the
 * SDK's batch processor and OTLP exporter as they end.
 */
interface Active {
  recorder: Recorder;
  traceState: (text: string) => SpanContext['traceState'];
}
let active: Active | undefined;

/** A span of this service: recorded, or undefined while tracing is off. */
export type TraceSpan = RecordedSpan;

export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (String(env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

export function tracingActive(): boolean {
  return active !== undefined;
}

/**
 * Starts recording spans, exported over OTLP in batches, or to the given exporter as each span
 * ends (tests). Resolves with the function that flushes and stops it.
 */
export async function startTracing(opts: { exporter?: SpanExporter } = {}): Promise<() => Promise<void>> {
  const [api, base, resources] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
  ]);
  const exporter = opts.exporter ?? (await otlpExporter());
  // A test reads its spans at once; a service batches them off the request path (OTEL_BSP_*).
  const processor = opts.exporter ? new base.SimpleSpanProcessor(exporter) : new base.BatchSpanProcessor(exporter);
  const recorder: Recorder = {
    processor,
    resource: resources.resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'fulfil' }),
    instrumentationScope: { name: 'fulfil' },
    sampler: samplerFromEnv(),
  };
  active = { recorder, traceState: api.createTraceState };
  return async () => {
    active = undefined;
    await processor.shutdown();
  };
}

/** OTLP over HTTP, JSON only when OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL asks for it. */
async function otlpExporter(): Promise<SpanExporter> {
  const protocol = process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? process.env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  // Protobuf: smaller than JSON and cheaper to make (the SDK's default protocol too).
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}

/**
 * The span's context as a job carries it (BullMQ's job.opts.telemetry.metadata: W3C
 * traceparent/tracestate as JSON, trace-carrier.ts); undefined when off or without a span. The
 * context travels this way instead of through bullmq-otel, whose spans per job (add, getNextJob,
 * process, complete, extendLocks) were most of a trace's cost; only the worker's span needs the parent.
 */
export function traceMetadata(span: TraceSpan | undefined): string | undefined {
  return active && span ? carrierOf(span.spanContext()) : undefined;
}

/** A span's parent: a span of this process, or the context a job carried (traceMetadata). */
export type Parent = TraceSpan | { metadata: string | undefined } | undefined;

function contextOf(on: Active, parent: Parent): SpanContext | undefined {
  if (!parent) return undefined;
  if ('spanContext' in parent) return parent.spanContext();
  return spanContextOf(parent.metadata, on.traceState);
}

/**
 * Runs fn in a span, a child of parent, when tracing is on; otherwise just runs it. Parents are
 * passed, not found in an async context: no context manager is registered, whose hooks would run
 * on every promise of the process, traced or not. Attributes are ids, names and outcomes only:
 * never payloads, headers, tokens or personal data.
 */
export async function traced<T>(
  name: string,
  parent: Parent,
  attributes: Attributes | (() => Attributes),
  fn: (span: TraceSpan | undefined) => Promise<T>,
  opts: { consumer?: boolean } = {},
): Promise<T> {
  if (!active) return fn(undefined);
  const attrs = typeof attributes === 'function' ? attributes() : attributes;
  const kind = opts.consumer ? KIND.CONSUMER : KIND.INTERNAL;
  const span = startRecordedSpan(active.recorder, name, kind, contextOf(active, parent), attrs);
  try {
    return await fn(span);
  } catch (err) {
    span.fail(err);
    throw err;
  } finally {
    span.end();
  }
}

/** The order or shipment a command payload names, added to the span attributes `into`. */
export function subjectOf(payload: unknown, into: Attributes = {}): Attributes {
  const p = payload as { order_id?: unknown; shipment_id?: unknown } | null;
  if (typeof p?.order_id === 'number') into['fulfil.order_id'] = p.order_id;
  if (typeof p?.shipment_id === 'number') into['fulfil.shipment_id'] = p.shipment_id;
  return into;
}

/**
 * A span started now, whose context the job carries (traceMetadata), ended by endSpan or
 * failSpan: for a request whose answer is sent after the traced work. Undefined (and nothing
 * built) when off.
 */
export function startSpan(describe: () => [string, Attributes]): TraceSpan | undefined {
  if (!active) return undefined;
  const [name, attributes] = describe();
  return startRecordedSpan(active.recorder, name, KIND.SERVER, undefined, attributes);
}

export function endSpan(span: TraceSpan | undefined, attributes: Attributes): void {
  span?.setAttributes(attributes);
  span?.end();
}

/** Ends the span as an error (the request failed before its answer). */
export function failSpan(span: TraceSpan | undefined, err: unknown): void {
  span?.fail(err);
  span?.end();
}

/** What a command's request span says: the method, the route template, the command and its subject. */
export function requestAttributes(
  request: { method: string; routeOptions: { url?: string | undefined } },
  command: string,
  payload: unknown,
): Attributes {
  return subjectOf(payload, {
    'http.request.method': request.method,
    'http.route': request.routeOptions.url ?? '',
    'fulfil.command': command,
  });
}

/**
 * database.transaction(fn), in one span (a child of parent) which names its statements
 * (`db.operation.batch.size` and `fulfil.db.statements`, e.g. "insert commands"); just the
 * transaction when off. One span per statement, with its text, cost more than the rest of the
 * trace together.
 */
export function tracedTransaction<T>(database: Database, parent: TraceSpan | undefined, fn: (tx: SqlTx) => Promise<T>): Promise<T> {
  if (!active) return database.transaction(fn);
  return traced('db transaction', parent, TRANSACTION, async (span) => {
    const names: string[] = [];
    try {
      return await database.transaction((tx) => fn(namingStatements(tx, names)));
    } finally {
      span?.setAttributes({ 'db.operation.batch.size': names.length, 'fulfil.db.statements': names });
    }
  });
}

const TRANSACTION: Attributes = { 'db.system.name': 'postgresql' };

/** The transaction, pushing each statement's name to names as it is sent. */
function namingStatements(tx: SqlTx, names: string[]): SqlTx {
  const named = Object.create(tx) as SqlTx;
  named.rows = (text, params) => (names.push(statementName(text)), tx.rows(text, params));
  named.finish = (text, params) => (names.push(statementName(text)), tx.finish(text, params));
  return named;
}

// Statement texts are constants: each is named once.
const statementNames = new Map<string, string>();

/** "select orders": the statement's verb and the first table it names (never its parameters). */
export function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    const verb = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase() ?? 'statement';
    const table = /\b(?:from|into|update|join)\s+"?(\w+)/i.exec(text)?.[1];
    name = table ? `${verb} ${table}` : verb;
    if (statementNames.size < 1000) statementNames.set(text, name);
  }
  return name;
}
