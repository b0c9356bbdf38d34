import { loadConfig } from '../../config.ts';
import { createLogger } from '../../logger.ts';
import { buildApp, type AppDeps } from '../app.ts';
import { routeCoverage, type RouteCoverage } from './plugin.ts';

/**
 * The OpenAPI document exactly as a running service serves it, built without one: the document
 * depends only on the routes, and no route touches its dependencies until a request comes, so
 * none is given (nothing is connected, no request is served).
 */
export async function buildOpenApiDocument(): Promise<unknown> {
  return (await describeRoutes()).doc;
}

/** The document, and the routes it covers and those it leaves out by mistake (registered without documentation). */
export async function describeRoutes(): Promise<{ doc: unknown } & RouteCoverage> {
  const unused = new Proxy(
    {},
    {
      get: () => {
        throw new Error('buildOpenApiDocument: the app was asked to serve');
      },
    },
  );
  const deps = {
    config: loadConfig({ NODE_ENV: 'development' }),
    log: createLogger('silent'),
    database: unused,
    readiness: [],
    secretBox: unused,
    dispatcher: unused,
    ops: { queues: [], metrics: unused },
    webhooks: unused,
  } as unknown as AppDeps;
  const app = await buildApp(deps);
  await app.ready();
  const doc = app.swagger();
  const { documented, undocumented } = routeCoverage(app);
  await app.close();
  return { doc, documented: [...documented], undocumented: [...undocumented] };
}

/** The committed file's text: stable key order as built, two-space indent, final newline. */
export function openApiFileText(doc: unknown): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}
