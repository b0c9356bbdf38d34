import type { Logger } from 'pino';
import type { Database } from '../db/client.ts';
import { publicEventOf, type ShipmentEventRow } from '../events/public-event.ts';
import { toShipmentVersion } from '../db/sql/shipment-version.ts';
import { countWebhookAttempt, observeWebhookLatency } from '../ops/webhook-metrics.ts';
import { retryDelayMs, type RetryPolicy } from './backoff.ts';
import { ACKNOWLEDGED, CLAIM_HEAD, CLAIM_ONE, FAILED } from './chain-sql.ts';
import type { SealedSecrets, SigningSecrets } from './endpoint-secrets.ts';
import { sendWebhook, type SendOptions, type SendResult } from './send.ts';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signPayload } from './signature.ts';
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
  actorBrokerageId: number | null;
  actorUserId: number | null;
  actorRole: string | null;
  commandId: string | null;
  evAtMs: number | null;
  /** The shipment version the event left, with its contacts (shipment-version.ts); null for none. */
  version: unknown;
}

export interface DeliverDeps {
  database: Database;
  secrets: SigningSecrets;
  queue: WebhookQueue;
  send: SendOptions;
  retry: RetryPolicy;
  log: Logger;
}

/** Events sent by one job before it hands the rest of the chain to a new job (fairness between chains). */
const MAX_PER_JOB = 50;

/**
 * One webhook job: sends the chain's events one after another, each only after the one before was
 * acknowledged, so a receiver sees an order's events in seq order. A failure records the attempt,
 * schedules the head again after a backoff, and ends the job; later events of that order wait,
 * other orders do not. Returns how many events were acknowledged.
 */
export async function deliverChain(deps: DeliverDeps, job: WebhookJob): Promise<number> {
  const leaseSeconds = (deps.send.connectTimeoutMs + deps.send.responseTimeoutMs) / 1000 + 5;
  let head =
    job.orderId === null
      ? (await deps.database.rows<Claimed>(CLAIM_ONE, [job.endpointId, job.deliveryId, leaseSeconds]))[0]
      : await claimHead(deps.database, job.endpointId, job.orderId, leaseSeconds);
  let delivered = 0;
  while (head) {
    const result = await sendOne(deps, job.endpointId, head);
    countWebhookAttempt(result.outcome);
    if (result.outcome !== 'success') {
      await recordFailure(deps, job, head, result);
      return delivered;
    }
    const ack = [job.endpointId, head.id, head.eventId, head.orderId, head.attempts, result.statusCode, result.latencyMs];
    if (head.orderId !== null && !head.redelivery) observeWebhookLatency((Date.now() - head.eventAtMs) / 1000);
    delivered++;
    if (job.orderId === null) {
      await deps.database.rows(ACKNOWLEDGED, ack);
      return delivered;
    }
    if (delivered >= MAX_PER_JOB) {
      await deps.database.rows(ACKNOWLEDGED, ack);
      // More may be owed: a fresh job, behind the chains already waiting.
      await deps.queue.kick([{ ...job, deliveryId: head.id, attempts: -1 }]);
      return delivered;
    }
    head = await acknowledgeAndClaimNext(deps, job.endpointId, job.orderId, ack, leaseSeconds);
  }
  return delivered;
}

/** Claims the chain's head for a job (CLAIM_HEAD says how it meets a job acknowledging the old head). */
export async function claimHead(
  database: Pick<Database, 'rows'>,
  endpointId: number,
  orderId: number,
  leaseSeconds: number,
): Promise<Claimed | undefined> {
  const [head] = await database.rows<Claimed>(CLAIM_HEAD, [endpointId, orderId, leaseSeconds]);
  return head;
}

/**
 * The acknowledgement and the claim of the chain's new head in one round trip: both go out
 * together in one transaction. The claim is a statement of its own, so it sees every row
 * committed before it ran, among them any event whose own job found this head still leased and
 * gave up; the acknowledgement is visible to it. Should either fail, neither holds and the
 * event is sent again (at least once).
 */
async function acknowledgeAndClaimNext(
  deps: DeliverDeps,
  endpointId: number,
  orderId: number,
  ack: unknown[],
  leaseSeconds: number,
): Promise<Claimed | undefined> {
  const [next] = await deps.database.transaction((tx) => {
    // Not awaited: sent with the claim; a failure here fails the claim behind it, which is.
    tx.rows(ACKNOWLEDGED, ack).catch(() => {});
    return tx.finish<Claimed>(CLAIM_HEAD, [endpointId, orderId, leaseSeconds]);
  });
  return next;
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
  if (c.evId === null || c.evAtMs === null || c.orderId === null || c.toState === null) return undefined;
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
    actorBrokerageId: c.actorBrokerageId,
    actorUserId: c.actorUserId,
    actorRole: c.actorRole,
    commandId: c.commandId,
    at: new Date(c.evAtMs),
  };
}

async function recordFailure(deps: DeliverDeps, job: WebhookJob, head: Claimed, result: SendResult): Promise<void> {
  const delayMs = retryDelayMs(head.attempts, deps.retry);
  const messages = {
    gone: 'disabled: the receiver answered 410 Gone',
    failing: `disabled: every attempt failed for ${Math.round(deps.retry.windowMs / 1000)} s (the retry window)`,
  };
  const [row] = await deps.database.rows<{ disabled: boolean; reason: 'gone' | 'failing' | null }>(FAILED, [
    job.endpointId,
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
    deps.log.warn({ endpointId: job.endpointId, reason, url: head.url }, `webhook endpoint ${messages[reason]}`);
    return;
  }
  await deps.queue.kick([{ ...job, deliveryId: head.id, attempts: head.attempts, delayMs }]);
}
