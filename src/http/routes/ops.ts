import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { registerQueueBoard } from '../../ops/queue-board.ts';
import type { HttpMetrics } from '../../telemetry/metrics-registry.ts';
import { denyFraming, requireOpsToken, type FailureLimiter } from '../../ops/ops-auth.ts';
import { orderViewRoutes } from '../../ops/order-view-route.ts';
import { deliveryIssueOpsRoutes } from '../../ops/delivery-issues-route.ts';
import type { Dispatch } from '../../queues/dispatcher.ts';
import { jobOrderRoute } from '../../ops/job-order.ts';
import { FormGuard } from '../../ops/form-guard.ts';
import { queueAddressRoute } from '../../ops/queue-address-route.ts';
import type { ServiceQueuesAddress } from '../../ops/queue-address.ts';
import { METRICS_CONTENT_TYPE, renderMetrics } from '../../telemetry/metrics-scrape.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import type { FileStore } from '../../files/file-store.ts';
import { opsLabelRoute } from '../../ops/label-route.ts';

export interface OpsDeps {
  queues: readonly Queue[];
  metrics: HttpMetrics;
  /** OPS_WRITE: the queue board may retry and clean jobs. */
  write?: boolean;
  /** Where this service's commands go, told to an operator's CLI given --base (D-169). */
  address?: ServiceQueuesAddress;
}

/**
 * Metrics for Prometheus; the queue board and the order view for people. All behind OPS_TOKEN,
 * wrong guesses limited per address like /v9's, and no page of /ops/ may be framed.
 */
export function opsRoutes(
  app: FastifyInstance,
  deps: {
    config: Pick<Config, 'OPS_TOKEN' | 'PUBLIC_HOST'>;
    database: Database;
    rateLimiter?: FailureLimiter | undefined;
    dispatcher?: Dispatch | undefined;
    files: FileStore;
  },
  ops: OpsDeps,
): void {
  const opsToken = deps.config.OPS_TOKEN;
  const failures = deps.rateLimiter;
  const forms = new FormGuard(opsToken, deps.config.PUBLIC_HOST ?? []);
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/ops/') || request.url === '/ops') await denyFraming(request, reply);
  });
  app.get('/metrics', { onRequest: requireOpsToken(opsToken, 'bearer', failures) }, async (_request, reply) => {
    const text = await renderMetrics({ queues: ops.queues, db: deps.database.db });
    return reply.type(METRICS_CONTENT_TYPE).send(text);
  });
  void app.register(async (scope) => {
    await registerQueueBoard(scope, { queues: ops.queues, opsToken, failures, write: ops.write ?? false, forms });
  });
  orderViewRoutes(app, {
    database: deps.database,
    opsToken,
    failures,
    write: (ops.write ?? false) && deps.dispatcher !== undefined,
    forms,
  });
  deliveryIssueOpsRoutes(app, {
    database: deps.database,
    dispatcher: deps.dispatcher,
    opsToken,
    failures,
    write: ops.write ?? false,
    forms,
  });
  opsLabelRoute(app, { database: deps.database, files: deps.files, opsToken, failures });
  jobOrderRoute(app, { queues: ops.queues, database: deps.database, opsToken, failures });
  if (ops.address) queueAddressRoute(app, { address: ops.address, opsToken, failures, write: ops.write ?? false });
}
