import { sweepWebhooks } from '../../src/webhooks/sweep.ts';
import type { HousekeepingTask } from './task.ts';

/** Webhook deliveries Postgres owes but Redis lost are queued again (src/webhooks/sweep.ts). */
export const sweepWebhooksTask: HousekeepingTask = {
  everyMs: (config) => config.WEBHOOK_SWEEP_EVERY_MS,
  run: async ({ database, webhookQueue }) => ({ queued: await sweepWebhooks(database, webhookQueue) }),
};
