import type { Logger } from 'pino';
import type { CommandQueues } from '@fulfil/client/transport';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/client.ts';
import type { TimerQueue } from '../../src/timers/deadline-timers.ts';
import type { WebhookQueue } from '../../src/webhooks/webhook-queue.ts';

/** What every housekeeping task may use; a task reads its own settings from `config`. */
export interface HousekeepingContext {
  database: Database;
  config: Config;
  log: Logger;
  /** Where lost commands are queued again. */
  queues: CommandQueues;
  /** The shard counts in service, where recovery looks for a command's job. */
  shardCounts?: () => readonly number[];
  /** Where owed webhook deliveries are queued again. */
  webhookQueue: WebhookQueue;
  /** Where deadline timers Redis lost are armed again. */
  timerQueue: TimerQueue;
}

/**
 * A periodic task of the whole deployment: one BullMQ job per period, run by whichever worker
 * process takes it. A run that fails is logged and left to the next period, not retried.
 */
export interface HousekeepingTask {
  /** Its period, from the configuration. */
  everyMs(config: Config): number;
  /** One run; the counts it answers are kept on the finished job (the queue board shows them). */
  run(ctx: HousekeepingContext): Promise<Record<string, number>>;
}
