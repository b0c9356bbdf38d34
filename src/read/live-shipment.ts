import { and, eq, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor } from '../db/client.ts';
import type { LiveShipment } from '../db/ops/shipment-rows.ts';
import { addresses, emailAddresses, phoneNumbers, shipments } from '../db/schema.ts';

export type { LiveShipment };

const shipFromPhone = alias(phoneNumbers, 'ship_from_phone');
const buyerPhone = alias(phoneNumbers, 'buyer_phone');
const shipToAddress = alias(addresses, 'ship_to_address');

/**
 * The shipment rows with the contact rows each shows, in one statement, by a filter given at
 * build time. Built once per database handle and kept (prepared): building this select is most
 * of drizzle's CPU, and a webhook delivery or a read runs it every time.
 */
function withContacts(ex: Executor) {
  return ex
    .select({ shipment: shipments, email: emailAddresses, shipFromAddress: addresses, shipFromPhone, phone: buyerPhone, shipToAddress })
    .from(shipments)
    .leftJoin(emailAddresses, eq(emailAddresses.id, shipments.emailAddressId))
    .leftJoin(addresses, eq(addresses.id, shipments.shipFromAddressId))
    .leftJoin(shipFromPhone, eq(shipFromPhone.id, shipments.shipFromPhoneNumberId))
    .leftJoin(buyerPhone, eq(buyerPhone.id, shipments.phoneNumberId))
    .leftJoin(shipToAddress, eq(shipToAddress.id, shipments.shipToAddressId));
}

function build(ex: Executor) {
  return {
    live: withContacts(ex)
      .where(and(eq(shipments.orderId, sql.placeholder('orderId')), isNull(shipments.replacedBy)))
      .prepare('fulfil_live_shipment'),
  };
}

// Per handle: a transaction's handle lives as long as the transaction, the pool's for good.
const prepared = new WeakMap<Executor, ReturnType<typeof build>>();
function statementsOf(ex: Executor): ReturnType<typeof build> {
  let built = prepared.get(ex);
  if (!built) prepared.set(ex, (built = build(ex)));
  return built;
}

type Joined = Awaited<ReturnType<ReturnType<typeof build>['live']['execute']>>[number];

function toLive({ shipment, email, shipFromAddress, shipFromPhone: sfp, phone, shipToAddress: sta }: Joined): LiveShipment {
  return {
    shipment,
    contacts: {
      email: email ?? undefined,
      shipFromAddress: shipFromAddress ?? undefined,
      shipFromPhone: sfp ?? undefined,
      phone: phone ?? undefined,
      shipToAddress: sta ?? undefined,
    },
  };
}

/** The order's live shipment (the one row no update has replaced); undefined before the order is accepted. */
export async function liveShipmentOf(ex: Executor, orderId: number): Promise<LiveShipment | undefined> {
  const [live] = await statementsOf(ex).live.execute({ orderId });
  return live && toLive(live);
}
