import type { SqlRunner } from '../db/client.ts';

/** The channel the relay notifies with the ids of the brokerages whose feed it extended. */
export const FEED_CHANNEL = 'fulfil_feed';

// One statement per relay batch: take `n` positions from the head, give them to the events in the
// order given (the relay's order), one feed row per party of each event's order, and notify the
// parties' waiting readers at commit. Non-shipment outbox topics find no shipment_events row.
// Each event is looked up on its own (the lateral LIMIT 1 keeps the planner from turning the
// lookups into a hash join over all of shipment_events, which it chose while the table's
// statistics still saw it small: a whole-table scan per batch, growing with the table).
const POSITION_BATCH = `
with batch as (select event_id, ord from unnest($1::text[]) with ordinality as b(event_id, ord)),
head as (update event_feed_head set position = position + (select count(*) from batch) where id = 1
         returning position - (select count(*) from batch) as base),
ins as (insert into event_feed (brokerage_id, position, event_row_id)
        select distinct p.brokerage_id, head.base + batch.ord, e.id
        from batch cross join head
        cross join lateral (select id, order_id from shipment_events where event_id = batch.event_id limit 1) e
        join orders o on o.id = e.order_id
        join offices f on f.id = o.seller_office_id
        cross join lateral (values (f.brokerage_id), (o.buyer_brokerage_id)) as p(brokerage_id)
        returning brokerage_id)
select pg_notify('${FEED_CHANNEL}', string_agg(distinct brokerage_id::text, ',')) from ins having count(*) > 0`;

/**
 * Appends relayed events to their parties' feeds. Called by the relay inside its batch
 * transaction, under its lock: batches take positions one after another and each commits before
 * the next begins, so the feed only ever grows at its end.
 */
export async function appendToFeeds(tx: SqlRunner, eventIds: readonly string[]): Promise<void> {
  if (eventIds.length > 0) await tx.rows(POSITION_BATCH, [eventIds]);
}
