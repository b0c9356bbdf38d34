import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { describeRoutes } from '../../src/http/openapi/document.ts';
import { installApiDocs, routeCoverage } from '../../src/http/openapi/plugin.ts';
import { derivedOperationId } from '../../src/http/openapi/finish-document.ts';
import { ok } from '../../src/http/openapi/route-doc.ts';
import { live } from '../../src/http/openapi/response-bodies.ts';

// Every route the service registers carries its documentation (its resource's *.docs.ts), and
// the reference has one operation per documented method and path, no more.

/** `GET /v9/orders/:id` → the document's `get` of `/v9/orders/{id}`. */
function operationOf(doc: any, route: string): unknown {
  const [method, url] = route.split(' ') as [string, string];
  return doc.paths?.[url.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
}

describe('route documentation', () => {
  it('covers every registered route, and the reference has exactly the documented ones', async () => {
    const { doc, documented, undocumented } = await describeRoutes();
    expect(undocumented).toEqual([]);
    expect(documented.length).toBeGreaterThan(20);
    for (const route of documented) expect(operationOf(doc, route), route).toBeDefined();
    const operations = Object.values((doc as any).paths).flatMap((item: any) => Object.keys(item));
    expect(operations.length).toBe(documented.length);
  });

  it('notices a route registered without documentation, and one whose docs are hidden', async () => {
    const app = Fastify();
    await installApiDocs(app);
    app.get('/v9/documented', { schema: { tags: ['Service'], summary: 'documented', response: ok(live, 'yes') } }, async () => ({}));
    app.get('/v9/forgotten', async () => ({}));
    app.route({
      method: ['PUT', 'POST'],
      url: '/v9/hidden',
      schema: { summary: 'hidden', tags: ['Service'], hide: true },
      handler: async () => ({}),
    });
    await app.ready();
    expect(routeCoverage(app)).toEqual({
      documented: ['GET /v9/documented'],
      undocumented: ['GET /v9/forgotten', 'PUT /v9/hidden', 'POST /v9/hidden'],
    });
    await app.close();
  });
});

describe('operation ids', () => {
  it('every operation is named by its documentation, verb first, in one style: none derived from its path', async () => {
    const { doc } = (await describeRoutes()) as { doc: any };
    const ids = new Map<string, string>();
    for (const [path, item] of Object.entries<Record<string, { operationId: string }>>(doc.paths)) {
      const methods = Object.keys(item);
      for (const [method, op] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        const id = op.operationId;
        // camelCase words, a verb first: createWebhookEndpoint, listInventory, getOrder.
        expect(id, where).toMatch(/^[a-z]+(?:[A-Z][a-z0-9]*)+$/);
        expect(id, `${where}: give the route docs an operationId (src/http/routes/*.docs.ts)`).not.toBe(derivedOperationId(method, path));
        // HTTP methods are not verbs of the API (get and delete are both).
        expect(id, `${where}: name the action, not the method`).not.toMatch(/^(post|put|patch)[A-Z]/);
        // The second method of a two-method route is the first's id with its method, nothing else.
        const alias = /^(.+)With(Put|Post|Patch)$/.exec(id);
        if (alias) {
          expect(alias[2]!.toLowerCase(), where).toBe(method);
          expect(
            methods.some((m) => item[m]!.operationId === alias[1]),
            `${where}: ${alias[1]} on the same path`,
          ).toBe(true);
        }
        expect(ids.get(id), `${where}: ${id} names ${ids.get(id)} too`).toBeUndefined();
        ids.set(id, where);
      }
    }
    expect(ids.size).toBeGreaterThan(20);
  });
});
