import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { errorBodyComponent } from './error-responses.ts';
import { describeApi } from './api-description.ts';
import { ROUTE_DOCS, routeDocKey } from './route-docs.ts';
import { SERVICE } from './service-info.ts';
import { SIGN_IN_BROWSER_JS, signInBrowserInterceptor } from './sign-in-browser.ts';

/** Routes that are deliberately not part of the callers' reference. */
const UNDOCUMENTED = [/^\/docs(\/|$)/, /^\/openapi\.json$/, /^\/metrics$/, /^\/ops(\/|$)/, /^\/v9$/];

/**
 * The API reference: each route gets its documentation schema as it is registered, @fastify/swagger
 * builds the OpenAPI 3.1 document from them, GET /openapi.json serves it and GET /docs renders it
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

  const undocumented: string[] = [];
  UNDOCUMENTED_ROUTES.set(app, undocumented);
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.method === 'HEAD' || UNDOCUMENTED.some((re) => re.test(route.url))) return;
    const doc = ROUTE_DOCS[routeDocKey(route.method, route.url)];
    if (doc) route.schema = { ...doc, ...route.schema };
    else undocumented.push(`${String(route.method)} ${route.url}`);
  });

  app.addSchema(errorBodyComponent);
  await app.register(swagger, {
    openapi: describeApi(SERVICE),
    hideUntagged: true,
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transformObject: (doc) => optionalBodies(('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject) as OpenApiDoc),
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, docExpansion: 'list', persistAuthorization: true, requestInterceptor: signInBrowserInterceptor },
    theme: { title: 'fulfil API reference', js: [{ filename: 'sign-in-browser.js', content: SIGN_IN_BROWSER_JS }] },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

const UNDOCUMENTED_ROUTES = new WeakMap<FastifyInstance, string[]>();

/** Routes registered with no entry in ROUTE_DOCS (a test keeps this empty). */
export function undocumentedRoutes(app: FastifyInstance): readonly string[] {
  return UNDOCUMENTED_ROUTES.get(app) ?? [];
}

type OpenApiDoc = { paths?: Record<string, Record<string, { requestBody?: { required?: boolean }; [k: string]: unknown }>> } & Record<
  string,
  unknown
>;

/**
 * @fastify/swagger marks every declared body required; these routes also take none (complete of
 * XSeats and Eticket shipments, the verify self-test), which an `x-body-optional` mark says.
 */
function optionalBodies(doc: OpenApiDoc): OpenApiDoc {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      if (op['x-body-optional'] && op.requestBody) op.requestBody.required = false;
      delete op['x-body-optional'];
    }
  }
  return doc;
}
