import { shipmentVersionJson } from '../db/sql/shipment-version.ts';

// The statements of one webhook chain (deliver-chain.ts). A claim also reads the event's own
// shipment_events row and the shipment version it left, so a delivery needs no separate read.

// The chain's head is claimed if it is due, its endpoint enabled, and no other worker holds it. The
// lease outlives any call (the call's own deadline plus a margin); a worker killed mid-call leaves
// it to expire, then the sweep re-queues.
const CLAIMABLE = `e.id = d.endpoint_id and e.enabled and d.delivered_at is null and d.next_attempt_at <= now()
  and (d.leased_until is null or d.leased_until < now())`;
const LEASE = `leased_until = now() + make_interval(secs => $3::float8), attempts = d.attempts + 1`;
const CLAIMED_FIELDS = `returning d.id, d.order_id, d.seq, d.event_id, d.kind, d.event_at, d.attempts, d.redelivery, e.url,
  e.brokerage_id, e.secret_ciphertext,
  case when e.previous_secret_expires_at > now() then e.previous_secret_ciphertext end as previous_secret_ciphertext`;
// A ping has no shipment_events row: the left join leaves the event columns null.
const WITH_EVENT = `
select c.id, c.order_id as "orderId", c.seq, c.event_id as "eventId", c.kind, (extract(epoch from c.event_at) * 1000)::float8 as "eventAtMs",
  c.attempts, c.redelivery, c.url, c.brokerage_id as "brokerageId", c.secret_ciphertext, c.previous_secret_ciphertext,
  ev.id as "evId", ev.shipment_id as "shipmentId", ev.new_shipment_id as "newShipmentId", ev.from_type as "fromType",
  ev.to_type as "toType", ev.from_state as "fromState", ev.to_state as "toState", ev.actor_brokerage_id as "actorBrokerageId",
  ev.actor_user_id as "actorUserId", ev.actor_role as "actorRole", ev.command_id as "commandId",
  (extract(epoch from ev.at) * 1000)::float8 as "evAtMs", ${shipmentVersionJson('ev.new_shipment_id')} as "version"
from claimed c left join shipment_events ev on ev.event_id = c.event_id`;

/**
 * The first undelivered event of (endpoint $1, order $2), lease $3 seconds. The head is found
 * with a row lock: when the job that holds the head is acknowledging it in a transaction that
 * also looks for the next head, this claim waits for that commit and then passes on to the next
 * undelivered row (Postgres re-checks a locked row and fetches another when it no longer
 * qualifies). Without the lock it read the old head as leased and gave up, while the other job's
 * look for the next head had run before the relay committed the event this job was queued for:
 * nobody claimed that event until the sweep.
 */
export const CLAIM_HEAD = `
with head as (
  select id from webhook_deliveries where endpoint_id = $1 and order_id = $2 and delivered_at is null
  order by seq limit 1 for update),
claimed as (
  update webhook_deliveries d set ${LEASE}
  from webhook_endpoints e, head h
  where d.id = h.id and ${CLAIMABLE}
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

// Only while still claimed: a redelivery asked for while the call was in flight releases the
// claim, and the event must then go out again rather than count as delivered.
export const ACKNOWLEDGED = `
with d as (update webhook_deliveries set delivered_at = now(), leased_until = null where id = $2 and leased_until is not null),
     e as (update webhook_endpoints set failing_since = null where id = $1 and failing_since is not null)
insert into webhook_attempts (endpoint_id, delivery_id, event_id, order_id, attempt, outcome, status_code, latency_ms)
values ($1, $2, $3, $4, $5, 'success', $6, $7)`;

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
