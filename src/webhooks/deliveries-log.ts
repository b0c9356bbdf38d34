import { randomUUID } from 'node:crypto';
import { and, desc, eq, lt } from 'drizzle-orm';
import type { Database, Executor } from '../db/client.ts';
import { webhookAttempts } from '../db/schema.ts';
import { NotFound } from '@fulfil/contract';
import { sweepWebhooks } from './sweep.ts';
import type { WebhookQueue } from './webhook-queue.ts';

export const ATTEMPTS_DEFAULT_LIMIT = 50;

/** The deliveries log of an endpoint, newest first, a page at a time (keyset on the attempt id). */
export async function listAttempts(ex: Executor, endpointId: number, page: { limit?: number; beforeId?: number; orderId?: number }) {
  const limit = page.limit ?? ATTEMPTS_DEFAULT_LIMIT;
  const rows = await ex
    .select()
    .from(webhookAttempts)
    .where(
      and(
        eq(webhookAttempts.endpointId, endpointId),
        page.beforeId === undefined ? undefined : lt(webhookAttempts.id, page.beforeId),
        page.orderId === undefined ? undefined : eq(webhookAttempts.orderId, page.orderId),
      ),
    )
    .orderBy(desc(webhookAttempts.id))
    .limit(limit);
  const attempts = rows.map((r) => ({
    id: r.id,
    at: r.at.toISOString(),
    event_id: r.eventId,
    order_id: r.orderId,
    attempt: r.attempt,
    outcome: r.outcome,
    status_code: r.statusCode,
    error: r.error,
    latency_ms: r.latencyMs,
  }));
  return { attempts, next_before_id: rows.length === limit ? (rows.at(-1)?.id ?? null) : null };
}

const REDELIVER = {
  event_id: `and event_id = $2`,
  order_id: `and order_id = $2::bigint`,
  since: `and event_at >= $2::timestamptz`,
} as const;

/**
 * Sends events again: one event, every event of an order, or every event since a time, of those
 * the endpoint was owed. They become undelivered and due now, and go out in seq order per order
 * like any other (an earlier undelivered event of the same order still goes first).
 */
export async function redeliver(
  database: Database,
  queue: WebhookQueue,
  endpointId: number,
  what: { event_id?: string | undefined; order_id?: number | undefined; since?: string | undefined },
): Promise<{ queued: number }> {
  const key = (Object.keys(REDELIVER) as Array<keyof typeof REDELIVER>).find((k) => what[k] !== undefined)!;
  const rows = await database.rows<{ id: number }>(
    `update webhook_deliveries set delivered_at = null, next_attempt_at = now(), redelivery = true, leased_until = null
     where endpoint_id = $1 ${REDELIVER[key]} returning id`,
    [endpointId, what[key]],
  );
  if (key === 'event_id' && rows.length === 0)
    throw new NotFound(`event ${what.event_id} was never owed to webhook endpoint ${endpointId}`);
  if (rows.length > 0) await sweepWebhooks(database, queue, { endpointId });
  return { queued: rows.length };
}

/** A `ping` event, sent now through the same path as any event (signed, logged, retried). */
export async function ping(database: Database, queue: WebhookQueue, endpointId: number): Promise<{ event_id: string }> {
  const eventId = `ping_${randomUUID()}`;
  const [row] = await database.rows<{ id: number }>(
    `insert into webhook_deliveries (endpoint_id, order_id, seq, event_id, kind, event_at) values ($1, null, 0, $2, 'ping', now()) returning id`,
    [endpointId, eventId],
  );
  await queue.kick([{ endpointId, orderId: null, deliveryId: row!.id, attempts: 0 }]);
  return { event_id: eventId };
}
