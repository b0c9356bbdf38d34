/** The channel the relay notifies with the ids of the brokerages whose feed it extended. */
export const FEED_CHANNEL = 'fulfil_feed';

/**
 * The feeds' part of the relay's batch statement (outbox-relay.ts), as CTEs over `relayed` (the
 * batch's events: outbox id, event_row_id, order_id): take as many positions from the head as the
 * batch holds, give them to the events in outbox order, one feed row per party of each event's
 * order. `fed` holds the brokerage of each row written; FEED_NOTIFY tells their waiting readers
 * at commit. The relay runs it under its lock, and each batch commits before the next begins, so
 * the feed only ever grows at its end.
 */
export function appendToFeedsOver(relayed: string): string {
  return `
batch as (select event_row_id, order_id, row_number() over (order by id) as ord from ${relayed}),
head as (update event_feed_head set position = position + (select count(*) from batch)
         where id = 1 and exists (select 1 from batch)
         returning position - (select count(*) from batch) as base),
fed as (insert into event_feed (brokerage_id, position, event_row_id)
        select distinct p.brokerage_id, head.base + batch.ord, batch.event_row_id
        from batch cross join head
        join orders o on o.id = batch.order_id
        join offices f on f.id = o.seller_office_id
        cross join lateral (values (f.brokerage_id), (o.buyer_brokerage_id)) as p(brokerage_id)
        returning brokerage_id)`;
}

/** The notification of the readers of the feeds `fed` extended; a subquery the batch statement selects. */
export const FEED_NOTIFY = `select pg_notify('${FEED_CHANNEL}', string_agg(distinct brokerage_id::text, ',')) from fed having count(*) > 0`;
