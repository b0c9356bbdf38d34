import { RateLimiter } from '../auth/rate-limit.ts';
import { startMetricsServer } from '../ops/metrics-server.ts';
import type { RoleContext } from './role-context.ts';

/** /metrics and /livez of a process without the API (worker, webhooks): the API serves its own. */
export async function startWorkerMetrics(ctx: RoleContext): Promise<string> {
  const { config, ops, log, database, prefix, onStop } = ctx;
  const producer = await ctx.workerProducer();
  const failures = new RateLimiter(producer, prefix, { perCredential: 0, authFailuresPerAddress: config.AUTH_FAILURES_PER_MINUTE });
  onStop({ phase: 'queues', name: 'auth failure limiter', close: () => failures.close() });
  const metrics = await startMetricsServer({
    port: ops.METRICS_PORT,
    host: config.HOST,
    opsToken: config.OPS_TOKEN,
    failures,
    db: database.db,
    connection: producer,
    prefix,
    shards: config.COMMAND_SHARDS,
    log,
  });
  onStop({ phase: 'http', name: 'metrics server', close: () => metrics.close() });
  return metrics.url;
}
