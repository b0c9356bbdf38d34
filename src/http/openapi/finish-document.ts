// What @fastify/swagger cannot say from a route's schema, added to the document it built. Route
// docs carry these as `x-` keys (which it copies onto the operation as they are); this removes
// them and writes the OpenAPI they stand for. Every rule here applies to any route registered
// the usual way, whoever adds it.

type Operation = {
  operationId?: string;
  description?: string;
  summary?: string;
  security?: unknown[];
  parameters?: Array<{ in: string; name: string; [k: string]: unknown }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown; examples?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown; examples?: unknown }>; links?: unknown; [k: string]: unknown }>;
  'x-body-optional'?: boolean;
  'x-request-examples'?: Record<string, unknown>;
  'x-response-examples'?: Record<string, Record<string, unknown>>;
  'x-links'?: Record<string, Record<string, unknown>>;
  [k: string]: unknown;
};

export type OpenApiDoc = { paths?: Record<string, Record<string, Operation>> } & Record<string, unknown>;

/** An answer any request may get before it reaches an operation: a request it cannot read. */
const MALFORMED = {
  description: '`invalid_params`: the request itself is malformed (a bad percent-encoding in the path, say)',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
};

export function finishDocument(doc: OpenApiDoc): OpenApiDoc {
  const ids = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, shared] of Object.entries(item)) {
      // The methods of one route share one object: each gets its own before it is changed.
      const op = (item[method] = structuredClone(shared));
      // @fastify/swagger marks every declared body required; some routes also take none.
      if (op['x-body-optional'] && op.requestBody) op.requestBody.required = false;
      delete op['x-body-optional'];
      op.operationId = uniqueOperationId(op.operationId ?? derivedOperationId(method, path), method, ids);
      op.description ??= op.summary;
      // Routes without a credential say so, rather than inherit a document-wide requirement.
      op.security ??= [];
      if (!Object.keys(op.responses ?? {}).some((s) => s.startsWith('4'))) op.responses = { ...op.responses, '4XX': MALFORMED };
      examples(op);
      for (const [status, links] of Object.entries(op['x-links'] ?? {})) {
        const response = op.responses?.[status];
        if (response) response.links = links;
      }
      delete op['x-links'];
    }
  }
  return doc;
}

function examples(op: Operation): void {
  const request = op['x-request-examples'];
  const json = op.requestBody?.content?.['application/json'];
  if (request && json) json.examples = request;
  delete op['x-request-examples'];
  for (const [status, byName] of Object.entries(op['x-response-examples'] ?? {})) {
    const content = op.responses?.[status]?.content?.['application/json'];
    if (content) content.examples = byName;
  }
  delete op['x-response-examples'];
}

/** Multi-method routes share one documentation: the second method gets the first's id with its name. */
function uniqueOperationId(id: string, method: string, ids: Set<string>): string {
  const unique = ids.has(id) ? `${id}With${method[0]!.toUpperCase()}${method.slice(1)}` : id;
  ids.add(unique);
  return unique;
}

/**
 * GET /v9/orders/{id}/events → getOrdersIdEvents: for a route whose documentation names none, so
 * the document stays valid; test/unit/route-docs.test.ts refuses such a name (D-086).
 */
export function derivedOperationId(method: string, path: string): string {
  const words = path
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w && w !== 'v9')
    .map((w) => w[0]!.toUpperCase() + w.slice(1));
  return `${method}${words.join('') || 'Root'}`;
}
