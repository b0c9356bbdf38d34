import type { FastifyInstance, RouteOptions } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { MethodNotAllowed } from '../http-errors.ts';

/**
 * A known path asked with a method it does not serve answers 405 with `Allow`, in the contract's
 * shape, before anything else happens: no credential is checked (the answer reveals only what the
 * published document says) and no body is read, so `QUERY /livez` without a Content-Type is a
 * 405 too, not a body error. Fastify itself answers 404 for these. Every route registered after
 * this hook is installed counts, whatever plugin registers it; a second router, fed from the
 * onRoute hook, answers "which methods would match this path" with Fastify's own matching rules.
 */
export function installMethodNotAllowed(app: FastifyInstance): void {
  const router = FindMyWay();
  const methods = new Set<HTTPMethod>();
  app.addHook('onRoute', (route: RouteOptions) => {
    for (const method of [route.method].flat() as HTTPMethod[]) {
      methods.add(method);
      try {
        router.on(method, route.url, () => {}, { params: (route.url.match(/[:*]/g) ?? []).length });
      } catch {
        // The same method and path twice (Fastify refuses it anyway, or a constraint differs).
      }
    }
  });
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.is404) return done();
    const path = request.url.split('?')[0] ?? '/';
    // Where a static segment and a parameter both match (…/etickets/link, …/etickets/:eticket_id),
    // the path is the static route's: only the methods of the most specific routes are allowed.
    const found = [...methods].flatMap((m) => {
      const match = router.find(m, path);
      return match ? [{ m, params: (match.store as { params: number }).params }] : [];
    });
    const fewest = Math.min(...found.map((f) => f.params));
    const allowed = found
      .filter((f) => f.params === fewest)
      .map((f) => f.m)
      .sort();
    if (allowed.length === 0) return done();
    done(new MethodNotAllowed(`${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`, allowed));
  });
}
