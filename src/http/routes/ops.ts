import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { registerQueueBoard } from '../../ops/queue-board.ts';
import type { HttpMetrics } from '../../ops/metrics.ts';
import { requireOpsToken } from '../../ops/ops-auth.ts';
import { orderViewRoutes } from '../../ops/order-view-route.ts';
import { METRICS_CONTENT_TYPE, renderMetrics } from '../../ops/scrape.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';

export interface OpsDeps {
  queues: readonly Queue[];
  metrics: HttpMetrics;
  /** OPS_WRITE: the queue board may retry and clean jobs. */
  write?: boolean;
}

/** Metrics for Prometheus; the queue board and the order view for people. All behind OPS_TOKEN. */
export function opsRoutes(app: FastifyInstance, deps: { config: Pick<Config, 'OPS_TOKEN'>; database: Database }, ops: OpsDeps): void {
  app.get('/metrics', { onRequest: requireOpsToken(deps.config.OPS_TOKEN, 'bearer') }, async (_request, reply) => {
    const text = await renderMetrics({ queues: ops.queues, db: deps.database.db });
    return reply.type(METRICS_CONTENT_TYPE).send(text);
  });
  void app.register(async (scope) => {
    await registerQueueBoard(scope, { queues: ops.queues, opsToken: deps.config.OPS_TOKEN, write: ops.write ?? false });
  });
  orderViewRoutes(app, { database: deps.database, opsToken: deps.config.OPS_TOKEN });
}
