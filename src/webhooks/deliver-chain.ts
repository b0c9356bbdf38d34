import type { Logger } from 'pino';
import type { Database } from '../db/client.ts';
import { publicEventOf, type ShipmentEventRow } from '../events/public-event.ts';
import { toShipmentVersion } from '../db/sql/shipment-version.ts';
import { countWebhookAttempt, observeWebhookLatency } from '../telemetry/webhook-metrics.ts';
import { retryDelayMs, type RetryPolicy } from './backoff.ts';
import { Acknowledgements } from './acknowledgements.ts';
import type { CallSlots } from './call-slots.ts';
import { CHAIN_LOCKS, CLAIM_HEADS, CLAIM_ONE, FAILED, unflushed } from './chain-sql.ts';
import type { SealedSecrets, SigningSecrets } from './endpoint-secrets.ts';
import { redactedUrl } from '../ops/redact-url.ts';
import { sendWebhook, type SendOptions, type SendResult } from './send.ts';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signPayload } from '@fulfil/contract';
import type { WebhookJob, WebhookQueue } from './webhook-queue.ts';

export interface Claimed extends SealedSecrets {
  id: number;
  orderId: number | null;
  seq: number;
  eventId: string;
  kind: string;
  eventAtMs: number;
  attempts: number;
  redelivery: boolean;
  url: string;
  brokerageId: number;
  /** The event's shipment_events row, null for a ping (and for an event missing there). */
  evId: number | null;
  shipmentId: number | null;
  newShipmentId: number | null;
  fromType: string | null;
  toType: string | null;
  fromState: string | null;
  toState: string | null;
  actorType: ShipmentEventRow['actorType'] | null;
  actorBrokerageId: number | null;
  actorUserId: number | null;
  actorRole: string | null;
  actorReason: string | null;
  commandId: string | null;
  evAtMs: number | null;
  /** The shipment version the event left, with its contacts (shipment-version.ts); null for none. */
  version: unknown;
}

export interface DeliverDeps {
  database: Database;
  /** Calls in flight in this process, shared by all its webhook jobs. */
  slots: CallSlots;
  secrets: SigningSecrets;
  queue: WebhookQueue;
  send: SendOptions;
  retry: RetryPolicy;
  log: Logger;
}

/** Events sent by one chain of a job before it hands the rest of the chain to a new job (fairness between chains). */
const MAX_PER_CHAIN = 50;

/**
 * One webhook job: the chains of one endpoint it carries (one per order, or a ping), side by side.
 * Returns how many events were acknowledged. A chain that failed to reach Postgres fails the job
 * once every chain has settled, so BullMQ retries it (a retry finds what is still owed).
 */
export async function deliverJob(deps: DeliverDeps, job: WebhookJob): Promise<number> {
  const orders = job.orderId === null ? [null] : [job.orderId, ...(job.more ?? [])];
  let delivered = 0;
  // More orders than call slots (a small WEBHOOK_CONCURRENCY) are taken in turns.
  for (let i = 0; i < orders.length; i += deps.slots.capacity) {
    delivered += await deliverSideBySide(deps, job, orders.slice(i, i + deps.slots.capacity));
  }
  return delivered;
}

async function deliverSideBySide(deps: DeliverDeps, job: WebhookJob, orders: (number | null)[]): Promise<number> {
  const leaseSeconds = (deps.send.connectTimeoutMs + deps.send.responseTimeoutMs) / 1000 + 5;
  await deps.slots.acquire(orders.length);
  let heads: Claimed[] = [];
  try {
    heads =
      job.orderId === null
        ? await unflushed<Claimed>(deps.database, [[CLAIM_ONE, [job.endpointId, job.deliveryId, leaseSeconds]]])
        : await claimHeads(deps.database, job.endpointId, orders as number[], leaseSeconds);
  } finally {
    deps.slots.release(orders.length - heads.length);
  }
  const acks = new Acknowledgements(deps.database, job.endpointId, leaseSeconds);
  const settled = await Promise.allSettled(
    heads.map((head) => deliverChain(deps, job.endpointId, head, acks).finally(() => deps.slots.release(1))),
  );
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.reduce((n, s) => n + (s.status === 'fulfilled' ? s.value : 0), 0);
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
      },
    },
    deps.send,
  );
}

function payloadOf(endpointId: number, head: Claimed): object {
  if (head.orderId === null) {
    return { id: head.eventId, type: 'ping', created_at: new Date(head.eventAtMs).toISOString(), data: { endpoint_id: endpointId } };
  }
  const row = eventRow(head);
  if (!row) throw new Error(`event ${head.eventId} is not in shipment_events`);
  return publicEventOf(row, head.brokerageId, toShipmentVersion(head.version));
}

/** The shipment_events row the claim read beside the delivery. */
function eventRow(c: Claimed): ShipmentEventRow | undefined {
  if (c.evId === null || c.evAtMs === null || c.orderId === null || c.toState === null || c.actorType === null) return undefined;
  return {
    id: c.evId,
    eventId: c.eventId,
    orderId: c.orderId,
    seq: c.seq,
    kind: c.kind,
    shipmentId: c.shipmentId,
    newShipmentId: c.newShipmentId,
    fromType: c.fromType,
    toType: c.toType,
    fromState: c.fromState,
    toState: c.toState,
    actorType: c.actorType,
    actorBrokerageId: c.actorBrokerageId,
    actorUserId: c.actorUserId,
    actorRole: c.actorRole,
    actorReason: c.actorReason,
    commandId: c.commandId,
    at: new Date(c.evAtMs),
  };
}

async function recordFailure(deps: DeliverDeps, endpointId: number, head: Claimed, result: SendResult): Promise<void> {
  const delayMs = retryDelayMs(head.attempts, deps.retry);
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
    result.error?.slice(0, 500) ?? null,
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
