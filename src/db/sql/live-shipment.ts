import type { SqlRunner } from '../client.ts';
import type { EmailAddressRow } from '../ops/contacts.ts';
import type { ShipmentRow } from '../ops/shipment-rows.ts';
import { shipmentColumns, toDate, toShipmentRow } from './shipment-columns.ts';
import { nextShipmentIdSql } from './shipment-id.ts';

// Sent right behind the order lock, in the same round trip: Postgres runs it after the lock is
// held, and as a separate statement READ COMMITTED gives it a fresh snapshot, so whatever
// replaced the shipment while this command waited is seen here. It names the order through the
// shipment the command names (a shipment never changes order), so it needs nothing the lock
// returns; when the lock finds nothing, its answer is ignored.
const live = (extra: string) => `
select ${shipmentColumns('s')}, e.address as "emailAddress", e.label as "emailLabel", e.updated_at as "emailUpdatedAt"${extra}
from shipments s left join email_addresses e on e.id = s.email_address_id
where s.order_id = (select order_id from shipments where id = $1::bigint) and s.replaced_by is null`;
const LIVE = live('');
// An update also draws the id of the replacement, so its answer is known before the write.
const LIVE_AND_NEXT_ID = live(`, ${nextShipmentIdSql('$1::bigint')} as "nextId"`);
// A command that delivers also reads the order's oldest active hold (D-218): in this statement, so
// it costs no statement of its own, and after the lock, so a hold committed while it waited is seen.
const LIVE_AND_HOLD = live(`, (select json_build_object('id', h.id, 'reason', h.reason) from holds h
  where h.order_id = s.order_id and h.released_at is null order by h.id limit 1) as "activeHold"`);

/** The live shipment of the order that `shipmentId` belongs to, with the e-mail row responses show. */
export async function liveShipment(
  tx: SqlRunner,
  shipmentId: number,
  opts: { drawNextId: boolean; activeHold?: boolean },
): Promise<
  { shipment: ShipmentRow; email?: EmailAddressRow; nextId?: number; activeHold?: { id: number; reason: string } | null } | undefined
> {
  const text = opts.drawNextId ? LIVE_AND_NEXT_ID : opts.activeHold ? LIVE_AND_HOLD : LIVE;
  const [raw] = await tx.rows<Record<string, unknown>>(text, [shipmentId]);
  if (!raw) return undefined;
  const { emailAddress, emailLabel, emailUpdatedAt, nextId, activeHold, ...rest } = raw;
  const shipment = toShipmentRow(rest);
  const email =
    shipment.emailAddressId === null
      ? undefined
      : {
          id: shipment.emailAddressId,
          address: String(emailAddress),
          label: (emailLabel as string | null) ?? null,
          updatedAt: toDate(emailUpdatedAt),
        };
  return {
    shipment,
    email,
    ...(nextId === undefined ? {} : { nextId: Number(nextId) }),
    ...(activeHold === undefined ? {} : { activeHold: activeHold as { id: number; reason: string } | null }),
  };
}
