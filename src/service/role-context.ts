import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import type { OpsConfig } from '../ops/ops-config.ts';
import type { LocalInboxes } from '../queues/reply-channel.ts';
import type { RedisConnection } from '@fulfil/client/transport';
import type { ResolvedRedis } from '../redis/resolve.ts';
import type { SecretBox } from '../auth/secret-box.ts';
import type { Resolve } from '../webhooks/send.ts';
import type { WebhookQueue } from '../webhooks/webhook-queue.ts';

/** Stopped in this order whatever the order of start-up (service.ts runs the steps). */
export const STOP_PHASES = ['http', 'workers', 'queues', 'database', 'redis', 'private redis'] as const;

export interface StopStep {
  phase: (typeof STOP_PHASES)[number];
  name: string;
  close: () => Promise<unknown>;
}

export interface Roles {
  api: boolean;
  /** Command workers, the outbox relay, shard layouts and housekeeping. */
  worker: boolean;
  /** Webhook delivery (WEBHOOK_CONCURRENCY at a time); absent: wherever the worker role runs. */
  webhooks?: boolean;
}

/** What the composition root (service.ts) hands each role it starts in this process. */
export interface RoleContext {
  config: Config;
  roles: Roles;
  ops: OpsConfig;
  log: Logger;
  database: Database;
  /** Where the inventory index and the event feed read: the replica of DATABASE_READ_URL, else `database`. */
  readDatabase: Database;
  redis: ResolvedRedis;
  secretBox: SecretBox;
  prefix: string;
  /** An answer to a caller of this service's own API is handed over in memory. */
  inboxes: LocalInboxes;
  webhookResolve: Resolve;
  onStop: (step: StopStep) => void;
  /** Registers a Redis connection: closed with the others at stop, its trouble logged once per outage. */
  track: (c: RedisConnection) => RedisConnection;
  /** A new blocking connection (BullMQ workers and listeners), tracked. */
  blocking: () => RedisConnection;
  /** The one producer connection of this process's worker and webhooks roles, tracked, ready. */
  workerProducer: () => Promise<RedisConnection>;
  /** The webhook queue both roles add to (fan-out, sweep, retries), on that connection; closed at stop. */
  webhookQueue: () => Promise<WebhookQueue>;
}
