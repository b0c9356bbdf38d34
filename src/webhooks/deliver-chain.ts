import type { Logger } from 'pino';
import type { Database } from '../db/client.ts';
import { countWebhookAttempt, observeWebhookLatency } from '../telemetry/webhook-metrics.ts';
import { retryDelayMs, type RetryPolicy } from './backoff.ts';
import { Acknowledgements } from './acknowledgements.ts';
import type { Claimed } from './claimed-delivery.ts';
import { admit, type EndpointOwners } from './admission.ts';
import type { Breakers } from './breaker.ts';
import type { CallSlots, SlotOwner } from './call-slots.ts';
import { CHAIN_LOCKS, CLAIM_HEADS, CLAIM_ONE, FAILED, unflushed } from './chain-sql.ts';
import type { SigningSecrets } from './endpoint-secrets.ts';
import { redactedUrl } from '../redact-url.ts';
import { payloadOf } from './event-payload.ts';
import { sendWebhook, type SendOptions, type SendResult } from './send.ts';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signPayload, standardWebhookHeaders } from '@fulfil/contract';
import type { WebhookJob, WebhookQueue } from './webhook-queue.ts';

export interface DeliverDeps {
  database: Database;
  /** Calls in flight in this process, shared fairly by all its webhook jobs. */
  slots: CallSlots;
  /** Each endpoint's circuit breaker, in this process. */
  breakers: Breakers;
  owners: EndpointOwners;
  secrets: SigningSecrets;
  queue: WebhookQueue;
  send: SendOptions;
  retry: RetryPolicy;
  log: Logger;
}

/** Events sent by one chain of a job before it hands the rest of the chain to a new job (fairness between chains). */
const MAX_PER_CHAIN = 50;

/**
 * One webhook job: the chains of one endpoint it carries (one per order, or a ping). It takes call
 * slots first (admission.ts: a share of them, or it is deferred), then runs that many chains side
 * by side; a chain that ends hands its slot to the next of the job's orders. Returns how many
 * events were acknowledged. A chain that failed to reach Postgres fails the job once every chain
 * has settled, so BullMQ retries it (a retry finds what is still owed). `canDefer`: the caller
 * handles DeferJob (the worker does); without it the job waits for its slots instead.
 */
export async function deliverJob(deps: DeliverDeps, job: WebhookJob, opts: { canDefer?: boolean } = {}): Promise<number> {
  const owner = await deps.owners.of(job.endpointId);
  if (!owner) return 0;
  const orders = job.orderId === null ? [null] : [job.orderId, ...(job.more ?? [])];
  const lanes = await admit(deps, owner, orders.length, opts.canDefer ?? false);
  return deliverInLanes(deps, job, owner, orders, lanes);
}

async function deliverInLanes(
  deps: DeliverDeps,
  job: WebhookJob,
  owner: SlotOwner,
  orders: (number | null)[],
  lanes: number,
): Promise<number> {
  const leaseSeconds = (deps.send.connectTimeoutMs + deps.send.responseTimeoutMs) / 1000 + 5;
  const pending = [...orders];
  // Claimed only while holding a slot: a claim starts a lease, which a call waiting for a slot could outlive.
  const claim = (n: number) => {
    const batch = pending.splice(0, n);
    return job.orderId === null
      ? unflushed<Claimed>(deps.database, [[CLAIM_ONE, [job.endpointId, job.deliveryId, leaseSeconds]]])
      : claimHeads(deps.database, job.endpointId, batch as number[], leaseSeconds);
  };
  let heads: Claimed[];
  try {
    heads = await claim(lanes);
  } catch (err) {
    deps.slots.release(owner, lanes);
    throw err;
  }
  const acks = new Acknowledgements(deps.database, job.endpointId, leaseSeconds);
  let delivered = 0;
  const failures: unknown[] = [];
  const lane = async (first: Claimed | undefined) => {
    try {
      for (let head = first; ;) {
        if (head) {
          const n = await deliverChain(deps, job.endpointId, head, acks);
          delivered += n;
        }
        // The next of the job's orders, unless the endpoint's breaker opened meanwhile.
        if (pending.length === 0 || !deps.breakers.closed(job.endpointId)) return;
        [head] = await claim(1);
      }
    } catch (err) {
      failures.push(err);
    } finally {
      deps.slots.release(owner, 1);
    }
  };
  await Promise.all(Array.from({ length: lanes }, (_, i) => lane(heads[i])));
  if (failures.length > 0) throw failures[0];
  if (pending.length > 0) await parkBehindBreaker(deps, job, pending as number[]);
  return delivered;
}

/**
 * Orders a job did not start because its endpoint's breaker opened: queued again for when it may
 * be called (a job of their own; should Redis refuse, the sweep finds them).
 */
async function parkBehindBreaker(deps: DeliverDeps, job: WebhookJob, orders: number[]): Promise<void> {
  const until = deps.breakers.heldUntil(job.endpointId) ?? Date.now();
  const [first, ...more] = orders;
  await deps.queue.kick([
    {
      endpointId: job.endpointId,
      orderId: first!,
      deliveryId: job.deliveryId,
      attempts: -2,
      more,
      delayMs: until - Date.now() + Math.random() * 1_000,
    },
  ]);
}

/**
 * One chain from its claimed head: sends the order's events one after another, each only after
 * the one before was acknowledged, so a receiver sees an order's events in seq order. A failure
 * records the attempt, schedules the head again after a backoff, and ends the chain; later events
 * of that order wait, other orders do not.
 */
async function deliverChain(deps: DeliverDeps, endpointId: number, first: Claimed, acks: Acknowledgements): Promise<number> {
  let head: Claimed | undefined = first;
  let delivered = 0;
  while (head) {
    const result = await sendOne(deps, endpointId, head);
    countWebhookAttempt(result.outcome);
    if (result.retryAfterMs !== undefined) result.retryAfterMs = Math.min(result.retryAfterMs, deps.retry.retryAfterMaxMs);
    deps.breakers.record(endpointId, result);
    if (result.outcome !== 'success') {
      await recordFailure(deps, endpointId, head, result);
      return delivered;
    }
    if (head.orderId !== null && !head.redelivery) observeWebhookLatency((Date.now() - head.eventAtMs) / 1000);
    delivered++;
    const answer = { statusCode: result.statusCode!, latencyMs: result.latencyMs };
    if (head.orderId === null) {
      await acks.acknowledge(head, answer, false);
      return delivered;
    }
    if (delivered >= MAX_PER_CHAIN) {
      await acks.acknowledge(head, answer, false);
      // More may be owed: a fresh job, behind the chains already waiting.
      await deps.queue.kick([{ endpointId, orderId: head.orderId, deliveryId: head.id, attempts: -1 }]);
      return delivered;
    }
    head = await acks.acknowledge(head, answer, true);
  }
  return delivered;
}

/** Claims the heads of the endpoint's chains of these orders, under their chain locks (CLAIM_HEADS says how it meets a job acknowledging an old head). */
export function claimHeads(
  database: Pick<Database, 'transaction'>,
  endpointId: number,
  orderIds: readonly number[],
  leaseSeconds: number,
): Promise<Claimed[]> {
  return unflushed<Claimed>(database, [
    [CHAIN_LOCKS, [endpointId, orderIds]],
    [CLAIM_HEADS, [endpointId, orderIds, leaseSeconds]],
  ]);
}

async function sendOne(deps: DeliverDeps, endpointId: number, head: Claimed): Promise<SendResult> {
  let body: string;
  let secrets: string[];
  try {
    body = JSON.stringify(payloadOf(endpointId, head));
    secrets = deps.secrets.of(endpointId, head);
  } catch (err) {
    // Not the receiver's fault, but recorded the same way so the event is retried, never skipped.
    deps.log.error({ err, endpointId, eventId: head.eventId }, 'webhook payload or secret unavailable');
    return { outcome: 'network', error: `not sent: ${(err as Error).message}`, latencyMs: 0 };
  }
  const t = Math.floor(Date.now() / 1000);
  return sendWebhook(
    {
      url: head.url,
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'fulfil-webhooks/1',
        [SIGNATURE_HEADER]: signPayload(secrets, t, body),
        [EVENT_ID_HEADER]: head.eventId,
        ...standardWebhookHeaders(secrets, head.eventId, t, body),
      },
    },
    deps.send,
  );
}

async function recordFailure(deps: DeliverDeps, endpointId: number, head: Claimed, result: SendResult): Promise<void> {
  // A receiver's Retry-After (bounded) puts the next attempt later than the backoff would, never earlier.
  const delayMs = Math.max(retryDelayMs(head.attempts, deps.retry), result.retryAfterMs ?? 0);
  const error = result.retryAfterMs === undefined ? result.error : `Retry-After: ${Math.round(result.retryAfterMs / 1000)} s`;
  const messages = {
    gone: 'disabled: the receiver answered 410 Gone',
    failing: `disabled: every attempt failed for ${Math.round(deps.retry.windowMs / 1000)} s (the retry window)`,
  };
  const [row] = await deps.database.rows<{ disabled: boolean; reason: 'gone' | 'failing' | null }>(FAILED, [
    endpointId,
    head.id,
    head.eventId,
    head.orderId,
    head.attempts,
    result.outcome,
    result.statusCode ?? null,
    error?.slice(0, 500) ?? null,
    result.latencyMs,
    delayMs / 1000,
    deps.retry.windowMs / 1000,
    result.statusCode === 410,
    messages.gone,
    messages.failing,
  ]);
  if (row?.disabled) {
    const reason = row.reason === 'gone' ? 'gone' : 'failing';
    deps.log.warn({ endpointId, reason, url: redactedUrl(head.url) }, `webhook endpoint ${messages[reason]}`);
    return;
  }
  // The chain alone: the job's other chains go on without it.
  await deps.queue.kick([{ endpointId, orderId: head.orderId, deliveryId: head.id, attempts: head.attempts, delayMs }]);
}
