import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor } from '../db/client.ts';
import type { ShipmentContacts } from '../db/ops/contacts.ts';
import type { ShipmentRow } from '../db/ops/shipment-rows.ts';
import { addresses, emailAddresses, phoneNumbers, shipments } from '../db/schema.ts';

export interface LiveShipment {
  shipment: ShipmentRow;
  contacts: ShipmentContacts;
}

const shipFromPhone = alias(phoneNumbers, 'ship_from_phone');
const buyerPhone = alias(phoneNumbers, 'buyer_phone');

/** Shipment rows matching `where`, each with the contact rows it shows, in one statement. */
async function shipmentsWithContacts(ex: Executor, where: SQL | undefined): Promise<LiveShipment[]> {
  const rows = await ex
    .select({ shipment: shipments, email: emailAddresses, shipFromAddress: addresses, shipFromPhone, phone: buyerPhone })
    .from(shipments)
    .leftJoin(emailAddresses, eq(emailAddresses.id, shipments.emailAddressId))
    .leftJoin(addresses, eq(addresses.id, shipments.shipFromAddressId))
    .leftJoin(shipFromPhone, eq(shipFromPhone.id, shipments.shipFromPhoneNumberId))
    .leftJoin(buyerPhone, eq(buyerPhone.id, shipments.phoneNumberId))
    .where(where);
  return rows.map(({ shipment, email, shipFromAddress, shipFromPhone: sfp, phone }) => ({
    shipment,
    contacts: {
      email: email ?? undefined,
      shipFromAddress: shipFromAddress ?? undefined,
      shipFromPhone: sfp ?? undefined,
      phone: phone ?? undefined,
    },
  }));
}

/** The order's live shipment (the one row no update has replaced); undefined before the order is accepted. */
export async function liveShipmentOf(ex: Executor, orderId: number): Promise<LiveShipment | undefined> {
  const [live] = await shipmentsWithContacts(ex, and(eq(shipments.orderId, orderId), isNull(shipments.replacedBy)));
  return live;
}

/** Shipment versions by id (live or replaced), keyed by id; one statement for any number. */
export async function shipmentVersions(ex: Executor, ids: readonly number[]): Promise<Map<number, LiveShipment>> {
  if (ids.length === 0) return new Map();
  // One array parameter, not one per id: the statement stays the same whatever the page size.
  const rows = await shipmentsWithContacts(ex, sql`${shipments.id} = any(${`{${[...new Set(ids)].join(',')}}`}::bigint[])`);
  return new Map(rows.map((r) => [r.shipment.id, r]));
}
