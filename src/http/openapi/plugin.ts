import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { errorBodyComponent } from './error-responses.ts';
import { describeApi } from './api-description.ts';
import { finishDocument, type OpenApiDoc } from './finish-document.ts';
import { WEBHOOK_PAYLOADS } from './webhook-payloads.ts';
import { SERVICE } from './service-info.ts';
import { SIGN_IN_BROWSER_JS, signInBrowserInterceptor } from './sign-in-browser.ts';
import { SIGN_IN_FORM_JS, swaggerUiPlugins } from './sign-in-form.ts';

/** Routes that are deliberately not part of the callers' reference. */
const UNDOCUMENTED = [/^\/docs(\/|$)/, /^\/openapi\.json$/, /^\/metrics$/, /^\/ops(\/|$)/, /^\/v9$/];

/**
 * The API reference: each route is registered with its documentation as its schema (the
 * resource's *.docs.ts beside it in src/http/routes/), @fastify/swagger builds the OpenAPI 3.1 document from them, GET /openapi.json serves it and GET /docs renders it
 * (Swagger UI, assets served from this process). Register before any route.
 *
 * The schemas document, they do not act: /v9 bodies are parsed after authentication and validated
 * by the routes' own zod parsers, and bodies must leave byte for byte as the handlers built them,
 * so the validator and serializer Fastify would compile from these schemas are replaced by ones
 * that pass everything through (JSON.stringify is what Fastify uses for a route without a schema).
 */
export async function installApiDocs(app: FastifyInstance): Promise<void> {
  app.setValidatorCompiler(() => (value) => ({ value }));
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  const seen: RouteCoverage = { documented: [], undocumented: [] };
  COVERAGE.set(app, seen);
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.method === 'HEAD' || UNDOCUMENTED.some((re) => re.test(route.url))) return;
    const methods = ([] as string[]).concat(route.method);
    const schema = route.schema as { summary?: unknown; tags?: unknown; hide?: unknown } | undefined;
    const documented = typeof schema?.summary === 'string' && Array.isArray(schema.tags) && !schema.hide;
    for (const method of methods) (documented ? seen.documented : seen.undocumented).push(`${method} ${route.url}`);
  });

  app.addSchema(errorBodyComponent);
  await app.register(swagger, {
    openapi: describeApi(SERVICE),
    hideUntagged: true,
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transformObject: (doc) => ({
      ...finishDocument(('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject) as OpenApiDoc),
      webhooks: WEBHOOK_PAYLOADS,
    }),
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // persistAuthorization would keep the token and the secret in localStorage, readable by any
    // page of this origin and kept across browser restarts: they stay in the page's memory.
    // The sign-in is one form, the secret in a password box (sign-in-form.ts).
    uiConfig: {
      deepLinking: true,
      docExpansion: 'list',
      persistAuthorization: false,
      requestInterceptor: signInBrowserInterceptor,
      plugins: swaggerUiPlugins,
    },
    theme: {
      title: 'fulfil API reference',
      js: [
        { filename: 'sign-in-browser.js', content: SIGN_IN_BROWSER_JS },
        { filename: 'sign-in-form.js', content: SIGN_IN_FORM_JS },
      ],
    },
    // "Try it out" calls the service that serves the page, whatever its port: the document's
    // templated server defaults to npm start's 127.0.0.1:8080.
    transformSpecificationClone: true,
    transformSpecification: (doc, request) => ({
      ...doc,
      servers: [{ url: `${request.protocol}://${request.host}`, description: 'this service' }, ...((doc.servers as object[]) ?? [])],
    }),
  });
  // The document names the service as the caller reached it, so a generated client's default
  // base URL is this deployment: Host (or, behind TRUST_PROXY, X-Forwarded-Host and -Proto, which
  // Fastify reads only then) and the connection's scheme. docs/openapi.json keeps the template.
  app.get('/openapi.json', { schema: { hide: true } }, async (request, reply) => {
    reply.header('vary', 'host, x-forwarded-host, x-forwarded-proto');
    return {
      ...app.swagger(),
      servers: [{ url: `${request.protocol}://${request.host}`, description: 'this service, as this request reached it' }],
    };
  });
}

/** Every route the reference covers, and every one registered without its documentation, as `METHOD /url`. */
export interface RouteCoverage {
  documented: string[];
  undocumented: string[];
}

const COVERAGE = new WeakMap<FastifyInstance, RouteCoverage>();

/** What the onRoute hook saw (test/unit/route-docs.test.ts keeps `undocumented` empty). */
export function routeCoverage(app: FastifyInstance): Readonly<RouteCoverage> {
  return COVERAGE.get(app) ?? { documented: [], undocumented: [] };
}
