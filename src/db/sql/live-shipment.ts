import type { SqlRunner } from '../client.ts';
import type { EmailAddressRow } from '../ops/contacts.ts';
import type { ShipmentRow } from '../ops/shipment-rows.ts';
import { shipmentColumns, toDate, toShipmentRow } from './shipment-columns.ts';

// Read after the order lock is held (a separate statement, so READ COMMITTED gives it a fresh
// snapshot): whatever replaced the shipment while this command waited is seen here.
const LIVE = `
select ${shipmentColumns('s')}, e.address as "emailAddress", e.label as "emailLabel", e.updated_at as "emailUpdatedAt"
from shipments s left join email_addresses e on e.id = s.email_address_id
where s.order_id = $1::bigint and s.replaced_by is null`;

/** The order's live shipment, with the recipient's e-mail row that responses show. */
export async function liveShipment(tx: SqlRunner, orderId: number): Promise<{ shipment: ShipmentRow; email?: EmailAddressRow } | undefined> {
  const [raw] = await tx.rows<Record<string, unknown>>(LIVE, [orderId]);
  if (!raw) return undefined;
  const { emailAddress, emailLabel, emailUpdatedAt, ...rest } = raw;
  const shipment = toShipmentRow(rest);
  const email =
    shipment.emailAddressId === null
      ? undefined
      : { id: shipment.emailAddressId, address: String(emailAddress), label: (emailLabel as string | null) ?? null, updatedAt: toDate(emailUpdatedAt) };
  return { shipment, email };
}
