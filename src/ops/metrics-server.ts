import { Queue } from 'bullmq';
import Fastify from 'fastify';
import type { RedisConnection } from '@fulfil/client/transport';
import type { Logger } from 'pino';
import type { Executor } from '../db/client.ts';
import { AppError, NotFound, toErrorBody, serviceQueuePlaces } from '@fulfil/contract';
import { requireOpsToken, type FailureLimiter } from './ops-auth.ts';
import { METRICS_CONTENT_TYPE, renderMetrics } from '../telemetry/metrics-scrape.ts';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * /metrics and /livez of a `--role worker` process, which has no HTTP ingress of its own: its
 * command durations and relayed transitions live in this process, so Prometheus scrapes each
 * worker on METRICS_PORT. Same OPS_TOKEN, and the same limit on wrong guesses, as the API's /metrics.
 */
export async function startMetricsServer(opts: {
  port: number;
  host: string;
  opsToken: string | undefined;
  /** Failed token guesses per address, counted with the API's (auth/rate-limit.ts). */
  failures: FailureLimiter;
  db: Executor;
  connection: RedisConnection;
  prefix: string;
  shards: number;
  log: Logger;
}): Promise<MetricsServer> {
  const queues = serviceQueuePlaces(opts.prefix, opts.shards).map(
    ({ name, prefix }) => new Queue(name, { prefix, connection: opts.connection }),
  );
  // The connection's own listener logs Redis trouble once per outage; without one here BullMQ 6
  // prints each reconnect's error to stderr as a multi-line stack trace.
  for (const q of queues) q.on('error', () => {});
  const app = Fastify({ logger: false, connectionTimeout: 10_000, requestTimeout: 10_000 });
  app.setErrorHandler((err, _request, reply) => {
    if (err instanceof AppError) return reply.status(err.status).headers(err.headers).send(toErrorBody(err));
    opts.log.warn({ err }, 'metrics scrape failed');
    return reply.status(503).send({ errors: [{ code: 'unavailable', message: 'metrics are unavailable for the moment' }] });
  });
  app.setNotFoundHandler(() => {
    throw new NotFound('a worker serves /metrics and /livez only');
  });
  app.get('/livez', async () => ({ status: 'ok' }));
  app.get('/metrics', { onRequest: requireOpsToken(opts.opsToken, 'bearer', opts.failures) }, async (_request, reply) =>
    reply.type(METRICS_CONTENT_TYPE).send(await renderMetrics({ queues, db: opts.db })),
  );
  let url: string;
  try {
    url = await app.listen({ port: opts.port, host: opts.host });
  } catch (err) {
    // Several workers on one host (no container per process) would all want the same port: the
    // second one still works, on a free port it names, rather than refusing to start.
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || opts.port === 0) throw err;
    url = await app.listen({ port: 0, host: opts.host });
    opts.log.warn({ wanted: opts.port, url }, 'METRICS_PORT is taken by another process; serving worker metrics on a free port');
  }
  opts.log.info({ url }, 'worker metrics listening');
  return {
    url,
    async close() {
      await app.close();
      await Promise.all(queues.map((q) => q.close()));
    },
  };
}
