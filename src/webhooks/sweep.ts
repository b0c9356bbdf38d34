import type { SqlRunner } from '../db/client.ts';
import type { ChainHead, WebhookQueue } from './webhook-queue.ts';

/**
 * The head of every chain that Postgres says is owed to an enabled endpoint and that no live
 * worker holds (an expired lease is a worker that died). Queued again under the job id it would
 * have had, so a job Redis still has is not doubled, and one it lost (a restart without its data,
 * a flush) comes back, delayed until the head is due.
 */
const HEADS = `
select distinct on (d.endpoint_id, coalesce(d.order_id, -d.id))
  d.endpoint_id as "endpointId", d.order_id as "orderId", d.id as "deliveryId", d.attempts,
  greatest(0, extract(epoch from d.next_attempt_at - now()) * 1000)::float8 as "delayMs",
  (d.leased_until is not null and d.leased_until >= now()) as held
from webhook_deliveries d
join webhook_endpoints e on e.id = d.endpoint_id and e.enabled
where d.delivered_at is null and ($2::bigint is null or d.endpoint_id = $2::bigint)
order by d.endpoint_id, coalesce(d.order_id, -d.id), d.seq
limit $1::int`;

export async function sweepWebhooks(
  db: SqlRunner,
  queue: WebhookQueue,
  opts: { endpointId?: number; limit?: number } = {},
): Promise<number> {
  const rows = await db.rows<ChainHead & { held: boolean }>(HEADS, [opts.limit ?? 10_000, opts.endpointId ?? null]);
  const heads = rows.filter((r) => !r.held).map(({ held: _held, ...head }) => head);
  await queue.kick(heads);
  return heads.length;
}
