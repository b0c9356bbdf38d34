import type { Database } from '../db/client.ts';
import { shipmentVersionAsLeftJson } from '../db/sql/shipment-version.ts';

// The statements of one webhook chain (deliver-chain.ts). A claim also reads the event's own
// shipment_events row and the shipment version it left (shipment-version.ts,
// shipmentVersionAsLeftJson), so a delivery needs no separate read.

/**
 * First in each claim's and acknowledgement's transaction (unflushed, below): its commit does not
 * wait for the WAL flush. What a Postgres crash can then forget (the last moments of claims and acknowledgements,
 * a prefix of the commit order kept) only means those events are claimed and sent again, in order,
 * with the same event ids: at least once, as always. Commands, the outbox relay and the
 * delivery rows it writes keep waiting for the flush; two more flushes per delivery made every
 * command's commit wait behind them.
 */
const NO_FLUSH_WAIT = `select set_config('synchronous_commit', 'off', true)`;

/** A statement and its parameters. */
export type Step = readonly [text: string, params: readonly unknown[]];

/**
 * Runs the steps as one transaction after NO_FLUSH_WAIT, in one round trip: every step is sent
 * at once, the last with COMMIT, and the last one's rows are the result. The earlier steps are not
 * awaited: a failure in one fails every statement behind it, the last included, which is.
 */
export function unflushed<T extends object>(database: Pick<Database, 'transaction'>, steps: readonly Step[]): Promise<T[]> {
  return database.transaction((tx) => {
    tx.rows(NO_FLUSH_WAIT, []).catch(() => {});
    for (const [text, params] of steps.slice(0, -1)) tx.rows(text, params).catch(() => {});
    const [text, params] = steps.at(-1)!;
    return tx.finish<T>(text, params);
  });
}

// The chain's head is claimed if it is due, its endpoint enabled, and no other worker holds it. The
// lease outlives any call (the call's own deadline plus a margin); a worker killed mid-call leaves
// it to expire, then the sweep re-queues.
const CLAIMABLE = `e.id = d.endpoint_id and e.enabled and d.delivered_at is null and d.next_attempt_at <= now()
  and (d.leased_until is null or d.leased_until < now())`;
const LEASE = `leased_until = now() + make_interval(secs => $3::float8), attempts = d.attempts + 1`;
const CLAIMED_FIELDS = `returning d.id, d.order_id, d.seq, d.event_id, d.kind, d.event_at, d.attempts, d.redelivery, e.url,
  e.brokerage_id, e.secret_ciphertext,
  case when e.previous_secret_expires_at > now() then e.previous_secret_ciphertext end as previous_secret_ciphertext`;
// The event's row is found by its order and seq (the unique index shipment_events_order_seq; event_id
// has no index since drizzle/0023, D-144), and the event id must match as well, so the row read is
// that very event. A ping (order_id null, seq 0) matches no row: the left join leaves the event
// columns null.
const WITH_EVENT = `
select c.id, c.order_id as "orderId", c.seq, c.event_id as "eventId", c.kind, (extract(epoch from c.event_at) * 1000)::float8 as "eventAtMs",
  c.attempts, c.redelivery, c.url, c.brokerage_id as "brokerageId", c.secret_ciphertext, c.previous_secret_ciphertext,
  ev.id as "evId", ev.shipment_id as "shipmentId", ev.new_shipment_id as "newShipmentId", ev.from_type as "fromType",
  ev.to_type as "toType", ev.from_state as "fromState", ev.to_state as "toState", ev.actor_type as "actorType",
  ev.actor_brokerage_id as "actorBrokerageId", ev.actor_user_id as "actorUserId", ev.actor_role as "actorRole",
  ev.actor_reason as "actorReason", ev.command_id as "commandId", ev.details,
  (extract(epoch from ev.at) * 1000)::float8 as "evAtMs", coalesce(ev.livemode, true) as livemode, ev.test_clock_id as "testClockId",
  ${shipmentVersionAsLeftJson('ev')} as "version", tce.body as "clockBody"
from claimed c left join shipment_events ev on ev.order_id = c.order_id and ev.seq = c.seq and ev.event_id = c.event_id
  left join test_clock_events tce on c.order_id is null and tce.event_id = c.event_id`;

/**
 * The locks of the chains (endpoint $1, each order of $2) until the transaction ends, taken in one
 * order (of their keys) by every transaction that claims or acknowledges: so two of them that
 * touch the same chains wait for each other instead of deadlocking, however their jobs listed the
 * orders. A statement of its own, before the claim: in READ COMMITTED the claim's snapshot is then
 * taken after any other claim or acknowledgement of these chains committed. An advisory lock is
 * held in memory only; a row lock (FOR UPDATE) would have written every head it looked at.
 * The two-key form does not share its key space with the one-key locks of the relay.
 */
export const CHAIN_LOCKS = `
select pg_advisory_xact_lock(hashint8($1::bigint), k)
from (select distinct hashint8(o) as k from unnest($2::bigint[]) as o order by k) as chains`;

/**
 * The first undelivered event of each chain (endpoint $1, each order of $2), lease $3 seconds,
 * under CHAIN_LOCKS: when the job that holds a head is acknowledging it in a transaction that
 * also looks for the next head, this claim waits for that commit and then sees the next head as
 * that job left it. (Without the wait it read the old head as leased and gave up, while the other
 * job's look for the next head had run before the relay committed the event this job was queued
 * for: nobody claimed that event until the sweep.) A chain whose head is leased or not yet due
 * claims nothing; the others are claimed all the same. The update names the heads by primary key,
 * so no plan scans the partial index of undelivered rows, which is large while a receiver is behind.
 */
export const CLAIM_HEADS = `
with head as (
  select h.id from unnest($2::bigint[]) as o(order_id)
  cross join lateral (
    select id from webhook_deliveries where endpoint_id = $1 and order_id = o.order_id and delivered_at is null
    order by seq limit 1) h),
claimed as (
  update webhook_deliveries d set ${LEASE}
  from webhook_endpoints e
  where d.id = any(array(select id from head)) and ${CLAIMABLE}
  ${CLAIMED_FIELDS})
${WITH_EVENT}`;

/** Delivery $2 of endpoint $1 (a ping: a chain of one), lease $3 seconds. */
export const CLAIM_ONE = `
with claimed as (
  update webhook_deliveries d set ${LEASE}
  from webhook_endpoints e
  where d.id = $2 and d.endpoint_id = $1 and ${CLAIMABLE}
  ${CLAIMED_FIELDS})
${WITH_EVENT}`;

// Acknowledged deliveries $2 (with their event ids $3, orders $4, attempts $5, status codes $6,
// latencies $7) of endpoint $1. Each is marked delivered only while still claimed: a redelivery
// asked for while the call was in flight releases the claim, and the event must then go out again
// rather than count as delivered.
export const ACKNOWLEDGED = `
with a as (select * from unnest($2::bigint[], $3::text[], $4::bigint[], $5::int[], $6::int[], $7::int[])
             as a(delivery_id, event_id, order_id, attempt, status_code, latency_ms)),
     d as (update webhook_deliveries set delivered_at = now(), leased_until = null
           where id = any($2::bigint[]) and leased_until is not null),
     e as (update webhook_endpoints set failing_since = null where id = $1 and failing_since is not null)
insert into webhook_attempts (endpoint_id, delivery_id, event_id, order_id, attempt, outcome, status_code, latency_ms)
select $1, delivery_id, event_id, order_id, attempt, 'success', status_code, latency_ms from a`;

// A failed attempt, and the endpoint's disabling when it was a 410 ($12) or the retry window ($11
// seconds) is over, in one statement: the claim released here and the disabling commit together,
// so no other worker can claim the head in between and call a receiver that said 410 again. The
// attempt rows are one insert so the disabling is logged after the attempt that caused it.
export const FAILED = `
with d as (update webhook_deliveries set leased_until = null, next_attempt_at = now() + make_interval(secs => $10::float8) where id = $2),
     e as (update webhook_endpoints w set failing_since = coalesce(w.failing_since, now()),
             enabled = w.enabled and not x.disable,
             disabled_reason = case when w.enabled and x.disable then x.reason else w.disabled_reason end,
             disabled_at = case when w.enabled and x.disable then now() else w.disabled_at end,
             updated_at = case when w.enabled and x.disable then now() else w.updated_at end
           from (select $12::boolean or coalesce(failing_since, now()) <= now() - make_interval(secs => $11::float8) as disable,
                        case when $12::boolean then 'gone' else 'failing' end as reason
                 from webhook_endpoints where id = $1) x
           where w.id = $1
           returning not w.enabled and w.disabled_at = now() as "disabled", w.disabled_reason as "reason"),
     a as (insert into webhook_attempts (endpoint_id, delivery_id, event_id, order_id, attempt, outcome, status_code, error, latency_ms)
           select $1::bigint, $2::bigint, $3::text, $4::bigint, $5::int, $6::text, $7::int, $8::text, $9::int
           union all
           select $1, null, $3, $4, 0, 'disabled', null, case when e.reason = 'gone' then $13 else $14 end, null from e where e.disabled)
select disabled, reason from e`;
