import { Queue } from 'bullmq';
import { WEBHOOKS_QUEUE, webhooksPlace } from '@fulfil/contract';
import type { RedisConnection } from '@fulfil/client/transport';

export { WEBHOOKS_QUEUE };

/** A job says only "look at this chain now"; what is owed lives in webhook_deliveries. */
export interface WebhookJob {
  endpointId: number;
  /** The order whose events the chain carries in seq order; null for a ping (a chain of one). */
  orderId: number | null;
  deliveryId: number;
  /**
   * Further orders of the same endpoint whose chains this job carries too (each in seq order, none
   * waiting for another): one job for what a relay batch owes an endpoint, not one per order.
   */
  more?: number[];
}

/** Orders in one job at most: each is a call that may be in flight at once. */
export const MAX_CHAINS_PER_JOB = 16;

/** The head of a chain as Postgres knows it: the first undelivered event of (endpoint, order). */
export interface ChainHead extends WebhookJob {
  /**
   * Attempts made so far on deliveryId; -1 marks a chain continued by the job that delivered
   * deliveryId, -2 the orders a job left when its endpoint's breaker opened.
   */
  attempts: number;
  /** How long until it is due; a delayed job meanwhile. */
  delayMs?: number;
}

/**
 * Job ids name the head and its attempt count: a new event, a retry and a sweep's re-queue of the
 * same head at the same attempt collapse into one job, while a later attempt gets a new one.
 * Finished and failed jobs are removed at once so an id can be used again (after a replay, or by
 * the sweep after a job gave up on an unreachable Postgres); failures are logged by the worker.
 */
export function webhookJobId(head: ChainHead): string {
  const more = head.more?.length ? `-and${head.more.length}` : '';
  return `wh-${head.endpointId}-${head.orderId ?? 'ping'}-${head.deliveryId}-${head.attempts}${more}`;
}

export class WebhookQueue {
  readonly queue: Queue<WebhookJob>;

  constructor(opts: { prefix: string; connection: RedisConnection }) {
    const place = webhooksPlace(opts.prefix, WEBHOOKS_QUEUE);
    this.queue = new Queue<WebhookJob>(place.name, {
      prefix: place.prefix,
      connection: opts.connection,
      // Retries here are for Postgres or Redis trouble inside the job; a receiver's failure is
      // recorded and scheduled by the job itself (deliver-chain.ts).
      defaultJobOptions: { attempts: 5, backoff: { type: 'exponential', delay: 1_000 }, removeOnComplete: true, removeOnFail: true },
    });
    // Connection trouble is logged once by the connection's owner (service.ts); a kick that fails
    // rejects to its caller, and what it would have queued the sweep queues later.
    this.queue.on('error', () => {});
  }

  /** Queues the chains (at once, or when due); one Redis round trip. */
  async kick(heads: readonly ChainHead[]): Promise<void> {
    if (heads.length === 0) return;
    await this.queue.addBulk(
      heads.map((h) => ({
        name: 'deliver',
        data: h.more?.length
          ? { endpointId: h.endpointId, orderId: h.orderId, deliveryId: h.deliveryId, more: h.more }
          : { endpointId: h.endpointId, orderId: h.orderId, deliveryId: h.deliveryId },
        opts: { jobId: webhookJobId(h), delay: Math.max(0, Math.round(h.delayMs ?? 0)) },
      })),
    );
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}

/**
 * The jobs for freshly written deliveries: the first row of each chain (rows of one chain come in
 * seq order), the chains of one endpoint gathered into jobs of up to MAX_CHAINS_PER_JOB orders.
 * A ping stays a job of its own.
 */
export function chainJobs(rows: readonly ChainHead[]): ChainHead[] {
  const heads = new Map<string, ChainHead>();
  for (const r of rows) {
    const key = `${r.endpointId}-${r.orderId ?? `p${r.deliveryId}`}`;
    if (!heads.has(key)) heads.set(key, r);
  }
  const jobs: ChainHead[] = [];
  const open = new Map<number, ChainHead>();
  for (const h of heads.values()) {
    if (h.orderId === null) {
      jobs.push(h);
      continue;
    }
    const job = open.get(h.endpointId);
    if (job && 1 + (job.more?.length ?? 0) < MAX_CHAINS_PER_JOB) {
      (job.more ??= []).push(h.orderId);
      continue;
    }
    const fresh = { ...h };
    open.set(h.endpointId, fresh);
    jobs.push(fresh);
  }
  return jobs;
}
