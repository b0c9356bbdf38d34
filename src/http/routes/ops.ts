import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { HttpMetrics } from '../../ops/http-metrics.ts';
import { renderMetricsText } from '../../ops/metrics-text.ts';
import { requireOpsToken } from '../../ops/ops-auth.ts';
import { loadQueuesPageData, renderQueuesPage } from '../../ops/queues-page.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';

export interface OpsDeps {
  queues: readonly Queue[];
  metrics: HttpMetrics;
}

/** Metrics for Prometheus and a read-only queue page for people; replays go through the CLI. */
export function opsRoutes(app: FastifyInstance, deps: { config: Pick<Config, 'OPS_TOKEN'>; database: Database }, ops: OpsDeps): void {
  app.get('/metrics', { onRequest: requireOpsToken(deps.config.OPS_TOKEN, 'bearer') }, async (_request, reply) => {
    const text = await renderMetricsText(ops.queues, deps.database.db, ops.metrics);
    return reply.type('text/plain; version=0.0.4').send(text);
  });

  app.get('/ops/queues', { onRequest: requireOpsToken(deps.config.OPS_TOKEN, 'basic') }, async (_request, reply) => {
    const html = renderQueuesPage(await loadQueuesPageData(ops.queues, deps.database.db));
    return reply.type('text/html; charset=utf-8').send(html);
  });
}
