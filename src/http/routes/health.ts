import type { FastifyInstance } from 'fastify';
import { withDeadline } from '../../deadline.ts';
import { SERVICE_DOCS } from './service.docs.ts';

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/**
 * Liveness says the process serves; readiness says Postgres and Redis answer too. The body says
 * only "ok" or "down" per check: it is open to anyone, and the reason (hosts, ports, driver
 * messages) goes to the log instead.
 */
export function healthRoutes(app: FastifyInstance, deps: { readiness: readonly ReadinessCheck[] }): void {
  app.get('/livez', { schema: SERVICE_DOCS.live }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: SERVICE_DOCS.ready }, async (request, reply) => {
    const results = await Promise.all(
      deps.readiness.map(async (c) => {
        try {
          await withDeadline(c.check(), 2_000, 'no answer');
          return [c.name, 'ok'] as const;
        } catch (err) {
          request.log.warn({ check: c.name, err }, `readiness check ${c.name} failed`);
          return [c.name, 'down'] as const;
        }
      }),
    );
    const ready = results.every(([, s]) => s === 'ok');
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks: Object.fromEntries(results) });
  });
}
