/** The channel the relay notifies with the ids of the brokerages whose feed it extended. */
export const FEED_CHANNEL = 'fulfil_feed';

/**
 * The feeds' part of the relay's batch statement (outbox-relay.ts), as CTEs over `taken` (the
 * batch's outbox rows: id, event_id): take as many positions from the head as the batch holds,
 * give them to the events in outbox order, one feed row per party of each event's order. `fed`
 * holds the brokerage of each row written; FEED_NOTIFY tells their waiting readers at commit.
 * The relay runs it under its lock, and each batch commits before the next begins, so the feed
 * only ever grows at its end. Non-shipment outbox topics find no shipment_events row.
 * Each event is looked up on its own (the lateral LIMIT 1 keeps the planner from turning the
 * lookups into a hash join over all of shipment_events, which it chose while the table's
 * statistics still saw it small: a whole-table scan per batch, growing with the table).
 */
export function appendToFeedsOver(taken: string): string {
  return `
batch as (select event_id, row_number() over (order by id) as ord from ${taken}),
head as (update event_feed_head set position = position + (select count(*) from batch)
         where id = 1 and exists (select 1 from batch)
         returning position - (select count(*) from batch) as base),
fed as (insert into event_feed (brokerage_id, position, event_row_id)
        select distinct p.brokerage_id, head.base + batch.ord, e.id
        from batch cross join head
        cross join lateral (select id, order_id from shipment_events where event_id = batch.event_id limit 1) e
        join orders o on o.id = e.order_id
        join offices f on f.id = o.seller_office_id
        cross join lateral (values (f.brokerage_id), (o.buyer_brokerage_id)) as p(brokerage_id)
        returning brokerage_id)`;
}

/** The notification of the readers of the feeds `fed` extended; a subquery the batch statement selects. */
export const FEED_NOTIFY = `select pg_notify('${FEED_CHANNEL}', string_agg(distinct brokerage_id::text, ',')) from fed having count(*) > 0`;
