/** The channel the relay notifies with the ids of the brokerages whose feed it extended. */
export const FEED_CHANNEL = 'fulfil_feed';

/**
 * The outbox's part of the relay's batch statement (outbox-relay.ts), as CTEs: the oldest waiting
 * feed rows (no position: schema/feed.ts), in event row order, take as many positions from the
 * head as the batch holds, in that order. `placed` holds each row given its position (event_row_id,
 * position, the two parties). The relay runs it under its lock, and each batch commits before the
 * next begins, so the feeds only ever grow at their end. The update finds its rows by the waiting
 * index alone: `position is null` is that index's condition.
 */
export function placeWaitingEvents(batchSize: string): string {
  return `
waiting as (select event_row_id, row_number() over (order by event_row_id) as ord
            from (select event_row_id from event_feed where position is null order by event_row_id limit ${batchSize}) w),
head as (update event_feed_head set position = position + (select count(*) from waiting)
         where id = 1 and exists (select 1 from waiting)
         returning position - (select count(*) from waiting) as base),
placed as (update event_feed f set position = head.base + w.ord
           from waiting w cross join head
           where f.event_row_id = w.event_row_id and f.position is null
           returning f.event_row_id, f.position, f.seller_brokerage_id, f.buyer_brokerage_id)`;
}

/** The notification of the readers of the feeds the batch extended (both parties of each event); a subquery over `relayed`. */
export function feedNotifyOver(relayed: string): string {
  return `select pg_notify('${FEED_CHANNEL}', string_agg(distinct p.brokerage_id::text, ','))
  from ${relayed} r cross join lateral (values (r.seller_brokerage_id), (r.buyer_brokerage_id)) as p(brokerage_id)
  having count(*) > 0`;
}
