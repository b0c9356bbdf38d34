import { TrackingNumberInUse } from '@fulfil/contract';
import type { SqlTx } from '../db/client.ts';
import type { SqlRunner } from '../db/database.ts';
import { numberKey } from './tracking-numbers.ts';
import { named } from '../db/sql/named-params.ts';

// The claim, and the release of the number this same shipment version held before (changed while
// pending; a number an earlier version shipped, a returned envelope's, stays), in one statement.
// The key is the guard: a second claimant waits on the first's row until it commits, then finds it
// held and is refused. Only the holder's order takes its own number again; a released one is free.
const CLAIM = named<{
  carrier: string;
  key: string;
  number: string;
  orderId: number;
  shipmentId: number;
  trackerId: string | null;
}>(
  (p) => `
with claimed as (
  insert into tracking_claims (carrier, number_key, tracking_number, order_id, shipment_id, tracker_id)
  values (${p.carrier}, ${p.key}, ${p.number}, ${p.orderId}::bigint, ${p.shipmentId}::bigint, ${p.trackerId})
  on conflict (carrier, number_key) do update set tracking_number = excluded.tracking_number, order_id = excluded.order_id,
    shipment_id = excluded.shipment_id, tracker_id = coalesce(excluded.tracker_id, tracking_claims.tracker_id), state = 'live',
    claimed_at = case when tracking_claims.state = 'released' then now() else tracking_claims.claimed_at end
  where (tracking_claims.order_id = excluded.order_id and tracking_claims.state = 'live') or tracking_claims.state = 'released'
  returning 1
),
released as (
  update tracking_claims set state = 'released'
  where order_id = ${p.orderId}::bigint and shipment_id = ${p.shipmentId}::bigint and state = 'live'
    and not (carrier = ${p.carrier} and number_key = ${p.key})
    and exists (select 1 from claimed)
  returning 1
)
select (select count(*) from claimed)::int as claimed`,
);

/**
 * Makes `number` the envelope of the order's shipment, or refuses with 409 tracking_number_in_use
 * when another order holds it (live, shipped, delivered or revoked: for good). Called while the
 * shipment is pending, so the number this version held before, if any, is released. A test
 * order claims nothing (D-197): no carrier ever reports on its envelope, and a test shipment must
 * neither block a live one's number nor learn that a live one holds it.
 */
export async function claimTrackingNumber(
  tx: Pick<SqlTx, 'rows'>,
  c: { orderId: number; shipmentId: number; number: string; trackerId: string | null; livemode: boolean },
  field = 'tracking_number',
): Promise<void> {
  if (!c.livemode) return;
  const { carrier, key } = numberKey(c.number);
  const [row] = await tx.rows<{ claimed: number }>(
    CLAIM.text,
    CLAIM.params({ carrier, key, number: c.number, orderId: c.orderId, shipmentId: c.shipmentId, trackerId: c.trackerId }),
  );
  if (!row || row.claimed !== 1) throw new TrackingNumberInUse(field);
}

/** Frees the order's numbers when its shipment leaves them before shipping (a new delivery method). */
export async function releaseTrackingNumbers(tx: Pick<SqlTx, 'rows'>, orderId: number): Promise<void> {
  await tx.rows(`update tracking_claims set state = 'released' where order_id = $1::bigint and state = 'live'`, [orderId]);
}

/** The order's envelope was lost and replaced (D-155): its number stays the order's, revoked. */
export async function revokeTrackingNumbers(tx: Pick<SqlTx, 'rows'>, orderId: number): Promise<void> {
  await tx.rows(`update tracking_claims set state = 'revoked' where order_id = $1::bigint and state = 'live'`, [orderId]);
}

/** Whether `number` is another order's (a check before anything is bought or stored; the claim decides). */
export async function trackingNumberHeldElsewhere(db: Pick<SqlRunner, 'rows'>, orderId: number, number: string): Promise<boolean> {
  const { carrier, key } = numberKey(number);
  const rows = await db.rows(
    `select 1 from tracking_claims where carrier = $1::text and number_key = $2::text and state <> 'released' and order_id <> $3::bigint`,
    [carrier, key, orderId],
  );
  return rows.length > 0;
}

export interface ClaimMatch {
  orderId: number;
  state: 'live' | 'revoked';
  /** The shipment version that claimed the number. */
  claimShipmentId: number;
  /** The order's live shipment, when it is a mailed one, or any for a revoked number (its scans are kept there, D-159). */
  liveId: number | null;
  sellerBrokerageId: number;
}

/**
 * The envelope a carrier's event is about: by the tracker id first (the account's own tracker of
 * the number), then by the number as its carrier reads it. Released numbers match nothing.
 */
export async function matchCarrierEvent(
  db: Pick<SqlRunner, 'rows'>,
  e: { trackerId: string | null; trackingCode: string; carrier: string | null },
): Promise<ClaimMatch | undefined> {
  const { carrier, key } = numberKey(e.trackingCode, e.carrier);
  const [row] = await db.rows<ClaimMatch>(
    `select c.order_id as "orderId", c.state, c.shipment_id as "claimShipmentId", s.id as "liveId", f.brokerage_id as "sellerBrokerageId"
     from tracking_claims c join orders o on o.id = c.order_id join offices f on f.id = o.seller_office_id
       left join shipments s on s.order_id = c.order_id and s.replaced_by is null
         and (s.type in ('FedEx', 'UPS', 'USPS', 'ProvidedAirbill') or c.state = 'revoked')
     where c.state in ('live', 'revoked') and (c.tracker_id = $1::text or (c.carrier = $2::text and c.number_key = $3::text))
     order by (c.tracker_id is not distinct from $1::text) desc, c.state = 'live' desc
     limit 1`,
    [e.trackerId, carrier, key],
  );
  if (!row) return undefined;
  return {
    ...row,
    orderId: Number(row.orderId),
    claimShipmentId: Number(row.claimShipmentId),
    liveId: row.liveId === null ? null : Number(row.liveId),
    sellerBrokerageId: Number(row.sellerBrokerageId),
  };
}
