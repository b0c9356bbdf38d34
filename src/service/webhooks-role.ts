import { deliverDeps, startWebhookWorker } from '../webhooks/webhook-worker.ts';
import type { RoleContext } from './role-context.ts';

/**
 * The webhooks role: delivery only. It runs beside the worker role by default; on its own
 * (`fulfil start --role webhooks`, with WEBHOOK_CONCURRENCY=0 on the workers) receivers' calls
 * take CPU and sockets in processes of their own, scaled and prioritised apart from commands.
 */
export async function startWebhooksRole(ctx: RoleContext): Promise<void> {
  const { config, log, database, secretBox, prefix, webhookResolve, onStop, blocking } = ctx;
  if (config.WEBHOOK_CONCURRENCY === 0) {
    // Said once at start: with every process at 0, events would wait in Postgres for good.
    log.info('WEBHOOK_CONCURRENCY=0: this process delivers no webhooks (run `fulfil start --role webhooks` processes for that)');
    return;
  }
  const queue = await ctx.webhookQueue();
  // Apart from the command workers: a receiver can hold only webhook slots (webhook-worker.ts).
  const worker = startWebhookWorker({
    ...deliverDeps(config, { database, secretBox, queue, log, resolve: webhookResolve }),
    prefix,
    connection: blocking(),
    concurrency: config.WEBHOOK_CONCURRENCY,
  });
  onStop({ phase: 'workers', name: 'webhook worker', close: () => worker.close() });
}
