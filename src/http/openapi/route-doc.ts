import type { z } from 'zod';
import { errorResponses, type ErrorStatus } from './error-responses.ts';
import { jsonSchemaOf, type JsonSchema } from './json-schema.ts';
import * as bodies from './response-bodies.ts';

// What every route's documentation is built from. Each resource's docs sit beside its routes
// (src/http/routes/*.docs.ts) and go in the route's own `schema` at registration; plugin.ts
// notes every route registered without one. Request schemas are the very zod parsers the routes
// validate with; the route handlers stay the only validators (docs/DECISIONS.md, "OpenAPI from
// the parsers").

export const SIGNED = [{ token: [], signature: [] }];

export const idParam = (what: string) => ({
  type: 'object',
  properties: { id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: `${what} id` } },
  required: ['id'],
});

export const commandHeaders = {
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      pattern: '^[\\x21-\\x7e]{1,255}$',
      description:
        'Repeat a command safely: the same key with the same request answers the first response (kept a week); with another request, 409.',
    },
    prefer: {
      type: 'string',
      description: "`respond-async`: answer 202 at once with the command's Location instead of waiting for its result.",
    },
  },
};

export const accepted202 = {
  202: {
    description: 'taken but not finished (asked with `Prefer: respond-async`, or it outlasted the wait): poll the Location',
    headers: { location: { type: 'string', description: '/v9/commands/<id>' } },
    ...jsonSchemaOf(bodies.commandQueued, 'output'),
  },
};

export const ok = (schema: z.ZodType, description: string) => ({ 200: { description, ...jsonSchemaOf(schema, 'output') } });

/** Errors every /v9 route can answer: authentication, rate limit, infrastructure. */
export const V9_ERRORS: ErrorStatus[] = [401, 429, 503];
export const COMMAND_ERRORS: ErrorStatus[] = [400, ...V9_ERRORS, 403, 404, 409, 413, 422];

/** What a route's documentation says beyond its schemas (finish-document.ts writes it out). */
interface Extras {
  /** Request body examples by name; each is sent to the service by a test. */
  requestExamples?: Record<string, { summary: string; value: unknown }>;
  /** Response examples by status, then by name. */
  responseExamples?: Record<number, Record<string, { summary: string; value: unknown }>>;
  /** OpenAPI links by status: where the answer leads. */
  links?: Record<number, Record<string, object>>;
  /** The modes of a query whose parameters depend on each other (a `oneOf`), beside its plain parameters (query-modes.ts). */
  queryModes?: JsonSchema;
}

function extras({ requestExamples, responseExamples, links, queryModes }: Extras) {
  return {
    ...(requestExamples ? { 'x-request-examples': requestExamples } : {}),
    ...(responseExamples ? { 'x-response-examples': responseExamples } : {}),
    ...(links ? { 'x-links': links } : {}),
    ...(queryModes ? { 'x-query-modes': queryModes } : {}),
  };
}

/** What the body check refuses whatever the schema: src/http/body.ts. */
const BODY_REFUSALS =
  'a `body` that is not UTF-8 JSON, is nested too deeply, or holds a `__proto__` key (or a `constructor` object with a `prototype`) at any depth (`field`: body); a string anywhere holding NUL, an unpaired surrogate, a control or a bidirectional-text character (`field`: where it is)';

export function v9(
  doc: {
    tag: string;
    /** Derived from method and path when absent (finish-document.ts). */
    operationId?: string;
    summary: string;
    description: string;
    params?: JsonSchema;
    querystring?: JsonSchema;
    headers?: JsonSchema;
    body?: JsonSchema;
    bodyOptional?: boolean;
    response: Record<number, object>;
    errors: ErrorStatus[];
    /** More about this route's 400s than the common text (a rule only the database can check). */
    badRequest?: string;
  } & Extras,
) {
  const { tag, errors, response, bodyOptional, badRequest, requestExamples, responseExamples, links, queryModes, ...rest } = doc;
  // Every body passes the same check before its schema (src/http/body.ts), so every operation
  // taking one may answer 400 for it, even one whose schema is "any JSON value".
  const statuses = [...new Set<ErrorStatus>(rest.body ? [400, ...errors] : errors)].sort((a, b) => a - b);
  const optional = bodyOptional ? { 'x-body-optional': true } : {};
  const failures = errorResponses(statuses);
  const reasons = [badRequest, rest.body ? BODY_REFUSALS : undefined].filter(Boolean);
  if (reasons.length && failures[400])
    failures[400] = { ...failures[400], description: [(failures[400] as { description: string }).description, ...reasons].join('; ') };
  return {
    tags: [tag],
    security: SIGNED,
    ...rest,
    ...optional,
    ...extras({ requestExamples, responseExamples, links, queryModes }),
    response: { ...response, ...failures },
  };
}

/** An OpenAPI link to the operation taking `id` from the given runtime expression. */
export const link = (operationId: string, id: string, description: string) => ({ operationId, parameters: { id }, description });

/** A command's 202 leads to its status. */
export const toCommand = {
  202: {
    commandStatus: link('getCommand', '$response.body#/id', 'poll until `response` is set'),
  },
};
