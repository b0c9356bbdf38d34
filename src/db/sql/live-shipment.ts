import type { SqlRunner } from '../client.ts';
import type { EmailAddressRow } from '../ops/contacts.ts';
import type { ShipmentRow } from '../ops/shipment-rows.ts';
import { shipmentColumns, toDate, toShipmentRow } from './shipment-columns.ts';

// Read after the order lock is held (a separate statement, so READ COMMITTED gives it a fresh
// snapshot): whatever replaced the shipment while this command waited is seen here.
const live = (extra: string) => `
select ${shipmentColumns('s')}, e.address as "emailAddress", e.label as "emailLabel", e.updated_at as "emailUpdatedAt"${extra}
from shipments s left join email_addresses e on e.id = s.email_address_id
where s.order_id = $1::bigint and s.replaced_by is null`;
const LIVE = live('');
// An update also draws the id of the replacement, so its answer is known before the write.
const LIVE_AND_NEXT_ID = live(`, nextval('shipments_id_seq') as "nextId"`);

/** The order's live shipment, with the recipient's e-mail row that responses show. */
export async function liveShipment(
  tx: SqlRunner,
  orderId: number,
  opts: { drawNextId: boolean },
): Promise<{ shipment: ShipmentRow; email?: EmailAddressRow; nextId?: number } | undefined> {
  const [raw] = await tx.rows<Record<string, unknown>>(opts.drawNextId ? LIVE_AND_NEXT_ID : LIVE, [orderId]);
  if (!raw) return undefined;
  const { emailAddress, emailLabel, emailUpdatedAt, nextId, ...rest } = raw;
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
  return { shipment, email, ...(nextId === undefined ? {} : { nextId: Number(nextId) }) };
}
