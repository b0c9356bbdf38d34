import type { Attributes, Span } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Database, SqlTx } from '../db/client.ts';
import type { Dispatch } from '../queues/dispatcher.ts';

/**
 * OpenTelemetry traces, off unless the standard variables ask for them
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; OTEL_SDK_DISABLED=true wins;
 * OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER and the exporter's own variables are read by the SDK).
 * Nothing of the SDK is loaded while they are off: the hooks below then only call through, so
 * the untraced path pays one branch.
 */
interface Active {
  api: typeof import('@opentelemetry/api');
}
let active: Active | undefined;

export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (String(env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

export function tracingActive(): boolean {
  return active !== undefined;
}

/**
 * Registers a tracer provider (W3C trace context, AsyncLocalStorage context) exporting over OTLP,
 * or to the given exporter (tests). Resolves with the function that flushes and unregisters it.
 */
export async function startTracing(opts: { exporter?: SpanExporter } = {}): Promise<() => Promise<void>> {
  const [api, node, base, resources] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
  ]);
  const exporter = opts.exporter ?? (await otlpExporter());
  const provider = new node.NodeTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'fulfil' }),
    // A test reads its spans at once; a service batches them off the request path.
    spanProcessors: [opts.exporter ? new base.SimpleSpanProcessor(exporter) : new base.BatchSpanProcessor(exporter)],
  });
  provider.register({ contextManager: null }); // parents are passed (traced)
  active = { api };
  return async () => {
    active = undefined;
    await provider.shutdown();
    api.trace.disable();
    api.context.disable();
    api.propagation.disable();
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
 * traceparent/tracestate as JSON); undefined when off or without a span. The context travels
 * this way instead of through bullmq-otel, whose spans per job (add, getNextJob, process,
 * complete, extendLocks) were most of a trace's cost; only the worker's span needs the parent.
 */
export function traceMetadata(span: Span | undefined): string | undefined {
  if (!active || !span) return undefined;
  const { api } = active;
  const carrier: Record<string, string> = {};
  api.propagation.inject(api.trace.setSpan(api.ROOT_CONTEXT, span), carrier);
  return carrier.traceparent ? JSON.stringify(carrier) : undefined;
}

/** A span's parent: a span of this process, or the context a job carried (traceMetadata). */
export type Parent = Span | { metadata: string | undefined } | undefined;

function contextOf(api: Active['api'], parent: Parent) {
  if (!parent) return api.ROOT_CONTEXT;
  if ('spanContext' in parent) return api.trace.setSpan(api.ROOT_CONTEXT, parent);
  try {
    return parent.metadata ? api.propagation.extract(api.ROOT_CONTEXT, JSON.parse(parent.metadata)) : api.ROOT_CONTEXT;
  } catch {
    return api.ROOT_CONTEXT; // not ours to refuse a job over
  }
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
  fn: (span: Span | undefined) => Promise<T>,
  opts: { consumer?: boolean } = {},
): Promise<T> {
  if (!active) return fn(undefined);
  const { api } = active;
  const attrs = typeof attributes === 'function' ? attributes() : attributes;
  const kind = opts.consumer ? api.SpanKind.CONSUMER : api.SpanKind.INTERNAL;
  const span = api.trace.getTracer('fulfil').startSpan(name, { attributes: attrs, kind }, contextOf(api, parent));
  try {
    return await fn(span);
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end();
  }
}

/** The order or shipment a command payload names, as span attributes. */
export function subjectOf(payload: unknown): Attributes {
  const p = payload as { order_id?: unknown; shipment_id?: unknown } | null;
  return {
    ...(typeof p?.order_id === 'number' ? { 'fulfil.order_id': p.order_id } : {}),
    ...(typeof p?.shipment_id === 'number' ? { 'fulfil.shipment_id': p.shipment_id } : {}),
  };
}

/**
 * A span started now, handed to the job by inSpan, ended by endSpan: for a
 * request whose answer is sent after the traced work. Undefined (and nothing built) when off.
 */
export function startSpan(describe: () => [string, Attributes]): Span | undefined {
  if (!active) return undefined;
  const [name, attributes] = describe();
  return active.api.trace.getTracer('fulfil').startSpan(name, { attributes, kind: active.api.SpanKind.SERVER });
}

/**
 * The dispatcher giving each job the span's context to carry; a throw ends the span as an error.
 * The dispatcher itself when there is no span.
 */
export function inSpan<D extends Dispatch>(span: Span | undefined, dispatcher: D): D {
  if (!span || !active) return dispatcher;
  const { api } = active;
  return Object.assign(Object.create(dispatcher) as D, {
    dispatch: async (command: Parameters<D['dispatch']>[0]) => {
      try {
        return await dispatcher.dispatch({ ...command, traceMetadata: traceMetadata(span) });
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: (err as Error).message });
        span.end();
        throw err;
      }
    },
  });
}

export function endSpan(span: Span | undefined, attributes: Attributes): void {
  span?.setAttributes(attributes);
  span?.end();
}

/** What a command's request span says: the method, the route template, the command and its subject. */
export function requestAttributes(
  request: { method: string; routeOptions: { url?: string | undefined } },
  command: string,
  payload: unknown,
): Attributes {
  return {
    'http.request.method': request.method,
    'http.route': request.routeOptions.url ?? '',
    'fulfil.command': command,
    ...subjectOf(payload),
  };
}

/**
 * The database with one span per transaction, which names its statements (`db.operation.batch.size`
 * and `fulfil.db.statements`, e.g. "insert commands"); the database itself when off. One span per
 * statement, with its text, cost more than the rest of the trace together.
 */
export function tracedTransactions(database: Database, parent: Span | undefined): Database {
  if (!active) return database;
  return Object.assign(Object.create(database) as Database, {
    transaction: <T>(fn: (tx: SqlTx) => Promise<T>) =>
      traced('db transaction', parent, { 'db.system.name': 'postgresql' }, (span) => {
        const names: string[] = [];
        return database
          .transaction((tx) => fn(namingStatements(tx, names)))
          .finally(() => span?.setAttributes({ 'db.operation.batch.size': names.length, 'fulfil.db.statements': names }));
      }),
  });
}

/** The transaction, pushing each statement's name to names as it is sent. */
function namingStatements(tx: SqlTx, names: string[]): SqlTx {
  const rows = tx.rows.bind(tx);
  const finish = tx.finish.bind(tx);
  return Object.assign(Object.create(tx) as SqlTx, {
    rows: <T extends object>(text: string, params: readonly unknown[]) => (names.push(statementName(text)), rows<T>(text, params)),
    finish: <T extends object>(text: string, params: readonly unknown[]) => (names.push(statementName(text)), finish<T>(text, params)),
  });
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
