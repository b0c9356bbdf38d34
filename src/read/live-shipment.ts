import { and, eq, isNull } from 'drizzle-orm';
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

/**
 * The order's live shipment (the one row no update has replaced) with the contact rows it shows,
 * in one statement; undefined before the order is accepted.
 */
export async function liveShipmentOf(ex: Executor, orderId: number): Promise<LiveShipment | undefined> {
  const [row] = await ex
    .select({ shipment: shipments, email: emailAddresses, shipFromAddress: addresses, shipFromPhone, phone: buyerPhone })
    .from(shipments)
    .leftJoin(emailAddresses, eq(emailAddresses.id, shipments.emailAddressId))
    .leftJoin(addresses, eq(addresses.id, shipments.shipFromAddressId))
    .leftJoin(shipFromPhone, eq(shipFromPhone.id, shipments.shipFromPhoneNumberId))
    .leftJoin(buyerPhone, eq(buyerPhone.id, shipments.phoneNumberId))
    .where(and(eq(shipments.orderId, orderId), isNull(shipments.replacedBy)));
  if (!row) return undefined;
  const { shipment, email, shipFromAddress, shipFromPhone: sfp, phone } = row;
  return {
    shipment,
    contacts: {
      email: email ?? undefined,
      shipFromAddress: shipFromAddress ?? undefined,
      shipFromPhone: sfp ?? undefined,
      phone: phone ?? undefined,
    },
  };
}
