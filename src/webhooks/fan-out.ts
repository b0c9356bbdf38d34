import { chainJobs, type ChainHead, type WebhookQueue } from './webhook-queue.ts';
import type { Logger } from 'pino';
import type { RelayFollower } from '../events/outbox-relay.ts';

/**
 * One delivery row per event and endpoint of each party brokerage (seller's and buyer's) that
 * subscribed to the event's kind (event_kinds null: every kind, those added after the endpoint was
 * created included), written by the relay's own batch statement: an event is owed to its endpoints
 * exactly when it leaves the outbox. A relay that re-publishes a batch after a crash finds the
 * rows already there (the unique (endpoint, event) index). `relayed`: the batch's events with
 * their order's parties (outbox-relay.ts names their columns); each row returned is one chain
 * head, as json.
 */
export function fanOutOver(relayed: string): string {
  return `
insert into webhook_deliveries (endpoint_id, order_id, seq, event_id, kind, event_at)
select e.id, ev.order_id, ev.seq, ev.event_id, ev.kind, ev.at
from ${relayed} ev
join webhook_endpoints e on e.brokerage_id in (ev.seller_brokerage_id, ev.buyer_brokerage_id)
  and (e.event_kinds is null or ev.kind = any(e.event_kinds))
order by ev.order_id, ev.seq
on conflict (endpoint_id, event_id) do nothing
returning json_build_object('endpointId', endpoint_id, 'orderId', order_id, 'deliveryId', id, 'attempts', attempts) as out`;
}

/** What the outbox relay runs for each batch: rows inside its statement, jobs after its commit. */
export class WebhookFanOut implements RelayFollower<ChainHead> {
  constructor(
    private readonly queue: WebhookQueue,
    private readonly log: Logger,
  ) {}

  over(relayed: string): string {
    return fanOutOver(relayed);
  }

  /** After the commit, so a job never runs before its rows are visible; if Redis refuses, the sweep queues them. */
  async afterCommit(rows: readonly ChainHead[]): Promise<void> {
    if (rows.length === 0) return;
    try {
      await this.queue.kick(chainJobs(rows));
    } catch (err) {
      this.log.warn({ err }, 'webhook deliveries recorded but not queued; the sweep will queue them');
    }
  }
}
