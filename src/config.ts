import { z } from 'zod';
import { resolveFileVariables } from './config-files.ts';
import { OperatorError } from './operator-error.ts';
import { clusterSafePrefix, isClusterUrl, parseRedisUrl } from '@fulfil/client/transport';
import { defaultCommandShards, MAX_COMMAND_SHARDS } from '@fulfil/contract';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const optionalString = z
  .string()
  .transform((s) => s.trim())
  .optional()
  .transform((s) => (s === '' ? undefined : s));

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function ms(min: number, max: number, fallback: number) {
  return z.coerce.number().int().min(min).max(max).default(fallback);
}

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration written as a number and a unit (90s, 30m, 48h, 2d, 1500ms), read as milliseconds. */
function duration(min: number, max: number, fallback: string) {
  return z
    .string()
    .trim()
    .default(fallback)
    .transform((v, ctx) => {
      const m = /^(\d+)(ms|s|m|h|d)$/.exec(v);
      const value = m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : NaN;
      if (!(value >= min && value <= max)) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a duration such as 48h, 90s, 30m or 2d, from ${min / 1000}s to ${max / 86_400_000}d`,
        });
        return z.NEVER;
      }
      return value;
    });
}

const envSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    /** Where HTTP (and a worker's /metrics) listens; unset: 127.0.0.1, or 0.0.0.0 when NODE_ENV=production. */
    HOST: optionalString,
    DATABASE_URL: optionalString.refine(
      (v) => v === undefined || /^postgres(ql)?:\/\//.test(v),
      'must be a postgres:// or postgresql:// URL',
    ),
    /** A streaming replica for the inventory index and the order event feed (docs/SCALING.md); else the primary. */
    DATABASE_READ_URL: optionalString.refine(
      (v) => v === undefined || /^postgres(ql)?:\/\//.test(v),
      'must be a postgres:// or postgresql:// URL',
    ),
    /** Postgres connections per process (per database URL); the listener and the relay's lock take one more each. */
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(10),
    /** One Redis (`redis://`, `rediss://`) or a cluster's seed nodes (`redis+cluster://host:port,host:port`). */
    REDIS_URL: optionalString.refine(
      (v) => v === undefined || (/^rediss?(\+cluster)?:\/\//.test(v) && parsesAsRedis(v)),
      'must be a redis:// or rediss:// URL, or redis+cluster://host:port,host:port,…',
    ),
    /**
     * `true`: without REDIS_URL, use (or start) the private redis-server of DATA_DIR even when a
     * Redis answers on 127.0.0.1:6379, which may be another project's.
     */
    /**
     * Test mode (docs/API.md §Test mode): test credentials, their sandbox data and the
     * /v9/test_helpers routes. `false` refuses test credentials (401) and hides the routes (404).
     */
    SANDBOX: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
    /**
     * The carrier simulator's step on the wall clock: how far apart the scans of a test shipment
     * without a test clock come (on a test clock they are a simulated day apart). A duration such
     * as 1m, 30s or 500ms.
     */
    SANDBOX_CARRIER_STEP: duration(100, 24 * 3600_000, '1m'),
    REDIS_PRIVATE: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    FULFIL_SECRET_KEY: optionalString.refine(
      (v) => v === undefined || /^[0-9a-fA-F]{64}$/.test(v) || Buffer.from(v, 'base64').length === 32,
      'must be 32 bytes, as 64 hex digits or base64',
    ),
    /**
     * Host names clients sign, comma-separated (a proxy in front may rewrite Host). When set, only
     * these verify: the Host header is not trusted for signatures.
     */
    PUBLIC_HOST: optionalString.transform((v) =>
      v === undefined
        ? undefined
        : v
            .split(',')
            .map((h) => h.trim())
            .filter((h) => h !== ''),
    ),
    LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
    DATA_DIR: optionalString.default('.data'),
    QUEUE_PREFIX: optionalString.default('fulfil').refine((v) => !v.includes(':'), 'must not contain ":"'),
    /** Order-command queues (docs/SCALING.md): default 1 on a single Redis, 3 on a cluster. */
    COMMAND_SHARDS: z.coerce.number().int().min(1).max(MAX_COMMAND_SHARDS).optional(),
    /** The shards a worker process consumes, e.g. `0,2` (default: all); other layouts still draining are consumed whole. */
    WORKER_SHARDS: optionalString
      .refine((v) => v === undefined || /^\d+(\s*,\s*\d+)*$/.test(v), 'must be shard numbers separated by commas, e.g. 0,2')
      .transform((v) => (v === undefined ? undefined : [...new Set(v.split(',').map((n) => Number(n.trim())))])),
    /** How often a worker announces its shard count and looks for other layouts to drain. */
    SHARD_REFRESH_MS: ms(100, 600_000, 5_000),
    /** A layout no worker announces any more is retired after its queues stayed empty this long. */
    SHARD_RETIRE_IDLE_MS: ms(0, 86_400_000, 60_000),
    /** How long a synchronous HTTP call waits for its command before answering 202. */
    COMMAND_WAIT_MS: z.coerce.number().int().min(1).max(120_000).default(10_000),
    /** Attempts of a command's job before it is given up (infrastructure errors only), and the first backoff. */
    JOB_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(40),
    JOB_BACKOFF_MS: z.coerce.number().int().min(1).max(600_000).default(250),
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
    SHUTDOWN_DEADLINE_MS: z.coerce.number().int().min(0).max(600_000).default(15_000),
    /** Outbox relay: events per batch and idle poll interval. */
    RELAY_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(200),
    RELAY_INTERVAL_MS: z.coerce.number().int().min(10).max(600_000).default(5_000),
    /** How often a standing-by relay asks for the relay lock (and the active one checks it still holds it). */
    RELAY_LEADER_CHECK_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
    /**
     * The events stream in Redis for consumers of every event (docs/OPERATIONS.md, "The events
     * stream"): off unless a consumer needs it, so Redis holds no event nobody reads.
     */
    EVENTS_STREAM: z.enum(['off', 'on']).default('off'),
    /** Events the stream keeps (trimmed as it grows, MAXLEN ~); what Redis holds of events is bounded by it. */
    EVENTS_STREAM_MAXLEN: z.coerce.number().int().min(1).max(100_000_000).default(100_000),
    /** Unfinished commands older than this whose job Redis no longer has are queued again (checked every RECOVERY_EVERY_MS). */
    RECOVERY_AFTER_MS: z.coerce
      .number()
      .int()
      .min(10)
      .max(24 * 3600_000)
      .default(60_000),
    RECOVERY_EVERY_MS: z.coerce.number().int().min(10).max(3600_000).default(30_000),
    /** Finished commands (idempotency keys, results) are kept this long; docs/API.md §Commands promises at least 24 h. */
    COMMAND_RETENTION_HOURS: z.coerce
      .number()
      .int()
      .min(24)
      .max(24 * 3650)
      .default(168),
    /**
     * Where file bytes (e-tickets, proofs of transfer) are kept: unset, in Postgres; `s3://bucket/prefix`,
     * in an S3-compatible bucket (credentials and region from the AWS SDK's usual variables).
     */
    FILE_STORE_URL: optionalString.refine(
      (v) => v === undefined || /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(v),
      'must be s3://bucket or s3://bucket/prefix',
    ),
    /** An S3-compatible server's endpoint (MinIO, Ceph, R2...), with path-style addressing; unset: AWS. */
    FILE_STORE_S3_ENDPOINT: optionalString.refine((v) => v === undefined || /^https?:\/\//.test(v), 'must be an http(s) URL'),
    /** A stored file no set references is removed after this long (housekeeping's prune-files). */
    FILE_GRACE_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 365)
      .default(24),
    /** A replaced e-ticket set stays in the history this long, then goes with its files (unless another set holds them). */
    FILE_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
    /**
     * Uploads one API process checks at once (each holds up to 25 MiB); more wait, up to UPLOAD_QUEUE_MS, then 503.
     * Two keep a 2-CPU process's peak near 850 MiB under 16 concurrent 10 MiB uploads (docs/BENCHMARKS.md).
     */
    UPLOAD_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(2),
    UPLOAD_QUEUE_MS: ms(0, 600_000, 10_000),
    /** Of the UPLOAD_CONCURRENCY slots, at most this many for one credential (default: half, at least one). */
    UPLOAD_SLOTS_PER_CREDENTIAL: z.coerce.number().int().min(1).max(256).optional(),
    /** An upload body must arrive at least this fast on average once UPLOAD_BODY_GRACE_MS has passed, else 408. */
    UPLOAD_MIN_BYTES_PER_SECOND: z.coerce.number().int().min(1).max(1_073_741_824).default(32_768),
    UPLOAD_BODY_GRACE_MS: ms(1_000, 600_000, 5_000),
    /** A checked file waits at most this long for a parsing thread (503 with Retry-After beyond). */
    UPLOAD_PARSE_QUEUE_MS: ms(0, 600_000, 5_000),

    // Mailed tickets: the carrier account (docs/OPERATIONS.md §Mailed tickets).
    /** EasyPost API key: set, POST /v9/shipments/:id/airbill with `{}` buys a label; unset, labels are uploaded. */
    EASYPOST_API_KEY: optionalString,
    /** Signs EasyPost's webhooks to POST /carriers/easypost/events (X-Hmac-Signature); unset, that route answers 404. */
    EASYPOST_WEBHOOK_SECRET: optionalString,
    /** The EasyPost API's address (tests point it at a local stub). */
    EASYPOST_BASE_URL: z
      .string()
      .regex(/^https?:\/\/\S+\/$/, 'must be an http(s) URL ending in /')
      .default('https://api.easypost.com/v2/'),
    /** How long a call to EasyPost may take before the purchase is given up (502, nothing changed). */
    EASYPOST_TIMEOUT_MS: ms(100, 120_000, 20_000),
    /** The return address of bought labels: an EasyPost address id (adr_…) saved in the account. */
    EASYPOST_FROM_ADDRESS_ID: optionalString,
    /**
     * /metrics and /ops/* want it (Authorization: Bearer, or HTTP Basic with it as the password).
     * `fulfil start` refuses to run in production without a strong one, and anywhere without one
     * on a HOST that is not loopback; elsewhere, unset, the pages are open (local development).
     */
    OPS_TOKEN: optionalString,
    /** Requests per credential per minute across all API processes; 0 turns the limit off. */
    RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
    /**
     * Behind a reverse proxy: `true` (trust X-Forwarded-For from any hop), or the proxies'
     * addresses/CIDRs, comma-separated; the client address then comes from the header.
     */
    TRUST_PROXY: optionalString.transform((v) => (v === undefined ? false : v === 'true' ? true : v.split(',').map((a) => a.trim()))),
    /** Failed authentications per client address per minute before 429; 0 turns it off. */
    AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(0).default(60),
    /**
     * How long an API process may use a credential it read without reading it again (0: read on
     * every request). Changes drop it at once (LISTEN/NOTIFY); this bounds a lost notification,
     * hence at most a second.
     */
    CREDENTIAL_CACHE_MS: ms(0, 1_000, 500),
    NODE_ENV: optionalString.default('development'),

    // Webhooks (docs/WEBHOOKS.md).
    /** Development only: allow http:// endpoint URLs and loopback/private addresses (refused when NODE_ENV=production). */
    WEBHOOK_ALLOW_PRIVATE: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    /**
     * Deliveries in flight at once per worker or webhooks process (a queue of its own, apart from
     * the commands'); 0 in a worker: it delivers none, `--role webhooks` processes do.
     */
    WEBHOOK_CONCURRENCY: z.coerce.number().int().min(0).max(256).default(16),
    WEBHOOK_CONNECT_TIMEOUT_MS: ms(10, 60_000, 3_000),
    /** The whole call (connect, send, status and the first bytes of the answer) must end within this. */
    WEBHOOK_RESPONSE_TIMEOUT_MS: ms(10, 120_000, 10_000),
    /** An endpoint failing without a break for this long is disabled; retries go on until then. */
    WEBHOOK_RETRY_WINDOW_MS: ms(1, 30 * 24 * 3600_000, 72 * 3600_000),
    /** First retry delay; each next one doubles (with jitter) up to WEBHOOK_BACKOFF_MAX_MS. */
    WEBHOOK_BACKOFF_BASE_MS: ms(1, 3600_000, 5_000),
    WEBHOOK_BACKOFF_MAX_MS: ms(1, 24 * 3600_000, 3600_000),
    /** How often the sweep re-queues deliveries Postgres owes but Redis lost (or a killed worker left). */
    WEBHOOK_SWEEP_EVERY_MS: ms(10, 3600_000, 30_000),
    /** The deadline policy's time zone (an IANA name): deliver_by is DEADLINE_LOCAL_TIME there (src/domain/deadline-policy.ts). */
    DEADLINE_TIME_ZONE: z
      .string()
      .default('America/New_York')
      .refine((v) => validTimeZone(v), 'must be an IANA time zone such as America/New_York'),
    /** The local time of day of a deadline on its day, HH:MM. */
    DEADLINE_LOCAL_TIME: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (24-hour)')
      .default('20:00'),
    /** How long before its deadline an open order's reminder (shipment.due_soon) fires. */
    DUE_SOON_BEFORE_MS: ms(0, 30 * 24 * 3600_000, 24 * 3600_000),
    /**
     * How long a seller has to answer a buyer's delivery issue (respond_by = opened_at + this)
     * before it is escalated: a duration such as 48h, 90s, 30m or 2d; in milliseconds once read.
     */
    DELIVERY_ISSUE_RESPONSE_WINDOW: duration(1_000, 30 * 24 * 3600_000, '48h'),
    /**
     * Without a carrier account: how long the buyer has to confirm receipt or open a delivery issue
     * after the seller says a shipped envelope was delivered, before the order completes on the
     * seller's unchallenged word (D-156): a duration such as 72h, 90s or 3d.
     */
    DELIVERY_CONFIRMATION_WINDOW: duration(1_000, 30 * 24 * 3600_000, '72h'),
    /** How often the timer sweep arms again the deadline timers Postgres has and Redis lost. */
    TIMER_SWEEP_EVERY_MS: ms(10, 3600_000, 60_000),
    /** Calls in flight at once to one brokerage's endpoints, per process (unset: half of WEBHOOK_CONCURRENCY). */
    WEBHOOK_MAX_INFLIGHT_PER_BROKERAGE: z.coerce.number().int().min(1).max(256).optional(),
    /** Calls in flight at once to one endpoint, per process (unset: a quarter of WEBHOOK_CONCURRENCY). */
    WEBHOOK_MAX_INFLIGHT_PER_ENDPOINT: z.coerce.number().int().min(1).max(256).optional(),
    /** Timeouts or connection failures in a row that open an endpoint's circuit breaker. */
    WEBHOOK_BREAKER_FAILURES: z.coerce.number().int().min(1).max(1_000).default(5),
    /** How long an open breaker waits before one probe call; doubles after each failed probe, up to WEBHOOK_BACKOFF_MAX_MS. */
    WEBHOOK_BREAKER_COOLDOWN_MS: ms(10, 24 * 3600_000, 30_000),
    /** The longest wait a receiver's Retry-After (on 429 or 503) is honoured for. */
    WEBHOOK_RETRY_AFTER_MAX_MS: ms(0, 24 * 3600_000, 3600_000),
    /** Webhook endpoints one brokerage may have; creating one more answers 409 `limit_reached`. */
    WEBHOOK_MAX_ENDPOINTS_PER_BROKERAGE: z.coerce.number().int().min(1).max(10_000).default(20),

    // Timeouts and caps (docs/RELIABILITY.md says what a caller gets when each one fires).
    /** A whole request (headers and body) must arrive within this, else 408 and the connection is closed. */
    HTTP_REQUEST_TIMEOUT_MS: ms(1_000, 600_000, 30_000),
    /** The request line and headers must arrive within this (at most HTTP_REQUEST_TIMEOUT_MS). */
    HTTP_HEADERS_TIMEOUT_MS: ms(1_000, 600_000, 10_000),
    /** A request whose handler has not answered by then gets 503 `unavailable`; more than COMMAND_WAIT_MS. */
    HTTP_HANDLER_TIMEOUT_MS: ms(1_000, 600_000, 25_000),
    /** An idle keep-alive connection is closed after this. */
    HTTP_KEEP_ALIVE_TIMEOUT_MS: ms(1_000, 600_000, 65_000),
    /** A connection on which nothing moves for this long is closed (0: never). */
    HTTP_CONNECTION_TIMEOUT_MS: ms(0, 3_600_000, 120_000),
    /** Open connections the HTTP server keeps at once; further ones are closed at once. */
    HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
    /**
     * Open connections of one client address; its own idle ones are closed first to make room
     * (0: no limit of its own). Unset: a tenth of HTTP_MAX_CONNECTIONS, or none behind TRUST_PROXY
     * (every connection then comes from the proxy).
     */
    HTTP_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(0).max(1_000_000).optional(),
    /**
     * Long polls of GET /v9/events (`wait`) that one credential, and one brokerage with all its
     * credentials, may have waiting at once in one API process; beyond, 429 at once. The process
     * holds half of HTTP_MAX_CONNECTIONS in all, so a single client cannot take every place.
     */
    FEED_WAITS_PER_CREDENTIAL: z.coerce.number().int().min(1).max(1_000_000).default(5),
    FEED_WAITS_PER_BROKERAGE: z.coerce.number().int().min(1).max(1_000_000).default(20),
    /** Requests served on one keep-alive connection before it is closed (0: no limit). */
    HTTP_MAX_REQUESTS_PER_SOCKET: z.coerce.number().int().min(0).max(1_000_000).default(1_000),
    /** `fulfil start` gives up (exit 1, one line saying what) when Redis has not answered by then. */
    STARTUP_TIMEOUT_MS: ms(1_000, 600_000, 10_000),
    /** Opening a Postgres connection gives up after this (the request then answers 503). */
    DATABASE_CONNECT_TIMEOUT_MS: ms(100, 600_000, 5_000),
    /** Postgres cancels a statement running longer (statement_timeout; 0: off). */
    DATABASE_STATEMENT_TIMEOUT_MS: ms(0, 3_600_000, 15_000),
    /** Postgres ends a session idle inside a transaction for longer (idle_in_transaction_session_timeout; 0: off). */
    DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: ms(0, 3_600_000, 15_000),
    /** A pooled Postgres connection unused for this long is closed (0: kept). */
    DATABASE_IDLE_TIMEOUT_MS: ms(0, 3_600_000, 60_000),
    /**
     * A statement with no answer after this long fails and its connection is abandoned, on the
     * client side (0: off): Postgres waiting on the client mid-statement never times out itself.
     */
    DATABASE_CLIENT_DEADLINE_MS: ms(0, 3_600_000, 20_000),
    /**
     * On the embedded database (no DATABASE_URL), a CLI guest's statement running longer than this
     * is stopped: PGlite's thread is restarted from its files (0: no bound). docs/OPERATIONS.md.
     */
    EMBEDDED_GUEST_STATEMENT_MS: ms(0, 3_600_000, 5_000),
  })
  .superRefine((c, ctx) => {
    if (c.NODE_ENV === 'production' && c.OPS_TOKEN !== undefined && !strongOpsToken(c.OPS_TOKEN)) {
      ctx.addIssue({
        code: 'custom',
        path: ['OPS_TOKEN'],
        message: `must be at least ${OPS_TOKEN_MIN_LENGTH} characters with at least ${OPS_TOKEN_MIN_DISTINCT} different ones when NODE_ENV=production (openssl rand -hex 32 makes one)`,
      });
    }
    if (
      c.DATABASE_CLIENT_DEADLINE_MS > 0 &&
      c.DATABASE_STATEMENT_TIMEOUT_MS > 0 &&
      c.DATABASE_CLIENT_DEADLINE_MS <= c.DATABASE_STATEMENT_TIMEOUT_MS
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_CLIENT_DEADLINE_MS'],
        message: 'must exceed DATABASE_STATEMENT_TIMEOUT_MS (Postgres should end a merely slow statement first)',
      });
    }
    if (c.HTTP_HEADERS_TIMEOUT_MS > c.HTTP_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['HTTP_HEADERS_TIMEOUT_MS'], message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS' });
    }
    const shards = c.COMMAND_SHARDS ?? defaultCommandShards(c.REDIS_URL !== undefined && isClusterUrl(c.REDIS_URL));
    const beyond = c.WORKER_SHARDS?.filter((n) => n >= shards);
    if (beyond?.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['WORKER_SHARDS'],
        message: `shard ${beyond[0]} does not exist with COMMAND_SHARDS=${shards} (0 to ${shards - 1})`,
      });
    }
    if (c.WEBHOOK_ALLOW_PRIVATE && c.NODE_ENV === 'production') {
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_ALLOW_PRIVATE'], message: 'must not be true when NODE_ENV=production' });
    }
    if (c.HTTP_HANDLER_TIMEOUT_MS <= c.COMMAND_WAIT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['HTTP_HANDLER_TIMEOUT_MS'],
        message: 'must exceed COMMAND_WAIT_MS (a command call waits that long before its 202)',
      });
    }
  });

/**
 * The ops token guards job payloads (names, phones, addresses) and is guessed over the network:
 * in production it must be long and not a repetition. 32 characters of 10 or more kinds is far
 * past what the per-address failure limit lets anyone try.
 */
export const OPS_TOKEN_MIN_LENGTH = 32;
export const OPS_TOKEN_MIN_DISTINCT = 10;
function strongOpsToken(token: string): boolean {
  return token.length >= OPS_TOKEN_MIN_LENGTH && new Set(token).size >= OPS_TOKEN_MIN_DISTINCT;
}

function parsesAsRedis(url: string): boolean {
  try {
    parseRedisUrl(url);
    return true;
  } catch {
    return false;
  }
}

// On a cluster the prefix carries a hash tag (redis-url.ts), from which every queue derives a tag of
// its own (queues/placement.ts): the CLI and the service read prefix and shard count from here.
// Outside production nothing is exposed by default: an open ops surface (no OPS_TOKEN) on all
// interfaces would show job payloads to the network.
const configSchema = envSchema.transform((c) => {
  const onCluster = c.REDIS_URL !== undefined && isClusterUrl(c.REDIS_URL);
  return {
    ...c,
    HOST: c.HOST ?? (c.NODE_ENV === 'production' ? '0.0.0.0' : '127.0.0.1'),
    QUEUE_PREFIX: clusterSafePrefix(c.QUEUE_PREFIX, onCluster),
    COMMAND_SHARDS: c.COMMAND_SHARDS ?? defaultCommandShards(onCluster),
  };
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends OperatorError {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Variables that hold a secret, or may (a URL with a password): an error never shows their value. */
const SECRET_VARIABLES = new Set(['FULFIL_SECRET_KEY', 'OPS_TOKEN', 'DATABASE_URL', 'REDIS_URL']);

/** What an error may say about the value it refuses: a plain setting as given; a secret only by its shape. */
function describeValue(name: string, value: string | undefined): string {
  if (value === undefined) return 'unset';
  if (!SECRET_VARIABLES.has(name)) return `got ${JSON.stringify(value)}`;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value.trim())?.[1];
  return scheme ? `got a ${scheme}:// URL; value not shown` : `got ${value.trim().length} characters; value not shown`;
}

/**
 * Reads and validates the environment (NAME_FILE read into NAME); a bad variable is named in the
 * error, a secret's value never shown.
 */
export function loadConfig(rawEnv: NodeJS.ProcessEnv = process.env): Config {
  const { env, problems } = resolveFileVariables(rawEnv);
  if (problems.length > 0) throw new ConfigError(problems);
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => {
        const name = String(i.path[0] ?? '?');
        return `${name}: ${i.message} (${describeValue(name, env[name])})`;
      }),
    );
  }
  return parsed.data;
}
