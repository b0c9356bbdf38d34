import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { CredentialCache } from '../auth/credential-cache.ts';
import type { RateLimiter } from '../auth/rate-limit.ts';
import type { SecretBox } from '../auth/secret-box.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import type { Dispatch } from '../queues/dispatcher.ts';
import { BODY_LIMIT } from './body.ts';
import { installMethodNotAllowed } from './method-not-allowed.ts';
import { connectionLimits, guardConnections } from './connection-guard.ts';
import { installRequestDeadline } from './request-deadline.ts';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling, installShutdownGate } from './error-handler.ts';
import { FeedWaiters } from '../events/feed-waiters.ts';
import { FeedCursors } from '../read/feed-cursor.ts';
import { installApiDocs } from './openapi/plugin.ts';
import { frontDoorRoutes } from './routes/front-door.ts';
import { healthRoutes, type ReadinessCheck } from './routes/health.ts';
import { opsRoutes, type OpsDeps } from './routes/ops.ts';
import type { WebhookRouteDeps } from './routes/webhook-endpoints.ts';
import { v9Routes } from './v9.ts';
import { PostgresFileStore, type FileStore } from '../files/file-store.ts';
import { downloadLinkRoutes } from './routes/shipment-files.ts';
import { UploadAdmission } from './upload-admission.ts';
import { InspectPool } from '../files/inspect-pool.ts';
import { EasyPostAdapter } from '../carriers/easypost-adapter.ts';
import { carrierWebhookRoutes } from './routes/carrier-webhooks.ts';
import type { ClockDelivery } from '../sandbox/clock-events.ts';
import { deadlinePolicyOf } from '../domain/deadline-policy.ts';

export interface AppDeps {
  config: Config;
  database: Database;
  /** The inventory index and the order event feed read here (a replica), when given. */
  readDatabase?: Database;
  log: Logger;
  readiness: ReadinessCheck[];
  secretBox: SecretBox;
  dispatcher: Dispatch;
  ops: OpsDeps;
  /** Per-credential request limit (docs/API.md §Errors, 429); absent when disabled. */
  rateLimiter?: RateLimiter;
  /** Webhook endpoints: where redeliveries are queued and the rules their URLs must meet. */
  webhooks?: WebhookRouteDeps['webhooks'];
  /** Credentials kept in memory (auth/credential-cache.ts); absent: read on every request. */
  credentialCache?: CredentialCache;
  /** Where file bytes live (FILE_STORE_URL); default: Postgres. */
  files?: FileStore;
  /** Arms new orders' deadline timers (test orders); without it the timer sweep does. */
  armTimers?: (orderIds: number[]) => Promise<void>;
  /** Starts a test clock's advance on the workers; without it the timer sweep does. */
  armAdvance?: (clockId: number) => Promise<void>;
  /** Sends a test clock event's webhook deliveries now; without it the webhook sweep does. */
  sendClockEvents?: (deliveries: ClockDelivery[]) => Promise<void>;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    trustProxy: deps.config.TRUST_PROXY,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    },
    // Fastify's own answers (closing, bad URL, client errors) are not in the contract's shape:
    // each is replaced by one that is (error-handler.ts).
    return503OnClosing: false,
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler: clientErrorHandler(deps.log as FastifyBaseLogger),
    forceCloseConnections: 'idle',
    // Every connection and request is bounded (docs/RELIABILITY.md): a client sending slowly
    // is cut off with 408, a handler stuck on a backend answers 503 (request-deadline.ts), idle
    // sockets are closed.
    requestTimeout: deps.config.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: deps.config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    connectionTimeout: deps.config.HTTP_CONNECTION_TIMEOUT_MS,
    maxRequestsPerSocket: deps.config.HTTP_MAX_REQUESTS_PER_SOCKET,
    http: {
      headersTimeout: deps.config.HTTP_HEADERS_TIMEOUT_MS,
      // Node checks the two timeouts above on this interval (30 s by default, too coarse).
      connectionsCheckingInterval: Math.min(1_000, deps.config.HTTP_HEADERS_TIMEOUT_MS),
    },
  });
  // The cap, shared fairly: per-address limits, idle connections closed first (connection-guard.ts).
  guardConnections(app.server, connectionLimits(deps.config));
  installShutdownGate(app);
  installMethodNotAllowed(app);
  installRequestDeadline(app, deps.config.HTTP_HANDLER_TIMEOUT_MS);
  // Hooks that never wait take a callback: an async one costs a promise and a turn per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    deps.ops.metrics.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  installErrorHandling(app);
  await installApiDocs(app);
  frontDoorRoutes(app);
  healthRoutes(app, deps);
  const files = deps.files ?? new PostgresFileStore(deps.database);
  opsRoutes(app, { ...deps, files }, deps.ops);
  // Long polls of GET /v9/events: at most half the connection cap, so they never take them all,
  // and a few per credential and per brokerage, so no one client takes every place; answered at
  // shutdown's start (preClose) so a closing server does not wait out their time.
  const feedWaiters = new FeedWaiters(deps.database, deps.log, {
    perProcess: Math.max(1, Math.floor(deps.config.HTTP_MAX_CONNECTIONS / 2)),
    perCredential: deps.config.FEED_WAITS_PER_CREDENTIAL,
    perBrokerage: deps.config.FEED_WAITS_PER_BROKERAGE,
  });
  await feedWaiters.start();
  app.addHook('preClose', () => feedWaiters.close());
  const feed = {
    feedWaiters,
    feedCursors: FeedCursors.from(deps.secretBox),
    maxWaitMs: Math.max(0, deps.config.HTTP_HANDLER_TIMEOUT_MS - 1_000),
  };
  const c = deps.config;
  const uploads = new UploadAdmission(
    {
      slots: c.UPLOAD_CONCURRENCY,
      perCredential: Math.min(c.UPLOAD_CONCURRENCY, c.UPLOAD_SLOTS_PER_CREDENTIAL ?? Math.max(1, Math.floor(c.UPLOAD_CONCURRENCY / 2))),
      waitMs: c.UPLOAD_QUEUE_MS,
      minBytesPerSecond: c.UPLOAD_MIN_BYTES_PER_SECOND,
      graceMs: c.UPLOAD_BODY_GRACE_MS,
    },
    deps,
  );
  // Files are parsed off the event loop, one thread per upload slot at most.
  const inspect = new InspectPool(c.UPLOAD_CONCURRENCY, { queueMs: c.UPLOAD_PARSE_QUEUE_MS });
  app.addHook('onClose', () => inspect.close());
  // The carrier account (docs/OPERATIONS.md §Mailed tickets): buys labels with a key, verifies webhooks with the secret.
  const carrier =
    c.EASYPOST_API_KEY || c.EASYPOST_WEBHOOK_SECRET
      ? new EasyPostAdapter({
          apiKey: c.EASYPOST_API_KEY,
          webhookSecret: c.EASYPOST_WEBHOOK_SECRET,
          baseUrl: c.EASYPOST_BASE_URL,
          timeoutMs: c.EASYPOST_TIMEOUT_MS,
          fromAddressId: c.EASYPOST_FROM_ADDRESS_ID,
        })
      : undefined;
  const sandbox = c.SANDBOX
    ? { policy: deadlinePolicyOf(c), armTimers: deps.armTimers, armAdvance: deps.armAdvance, sendClockEvents: deps.sendClockEvents }
    : undefined;
  await app.register(v9Routes({ ...deps, feed, files, uploads, inspect, carrier, sandbox }), { prefix: '/v9' });
  await app.register(
    carrierWebhookRoutes({
      database: deps.database,
      dispatcher: deps.dispatcher,
      easypost: c.EASYPOST_WEBHOOK_SECRET ? carrier : undefined,
    }),
  );
  // One-time e-ticket links work without credentials: beside the signed scope, not in it.
  await app.register(downloadLinkRoutes({ database: deps.database, files }));
  return app;
}
