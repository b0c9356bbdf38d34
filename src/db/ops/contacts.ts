import { eq } from 'drizzle-orm';
import type { Executor, Tx } from '../client.ts';
import { addresses, emailAddresses, phoneNumbers } from '../schema.ts';
import type { AddressAttributes, PhoneNumberAttributes } from '../../domain/contact-input.ts';

export type EmailAddressRow = typeof emailAddresses.$inferSelect;
export type PhoneNumberRow = typeof phoneNumbers.$inferSelect;
export type AddressRow = typeof addresses.$inferSelect;

export async function insertEmailAddress(tx: Tx, address: string): Promise<EmailAddressRow> {
  const [row] = await tx.insert(emailAddresses).values({ address }).returning();
  return row!;
}

export async function insertPhoneNumber(tx: Tx, p: PhoneNumberAttributes): Promise<PhoneNumberRow> {
  const [row] = await tx
    .insert(phoneNumbers)
    .values({ label: p.label ?? null, countryCode: p.country_code, number: p.number, extension: p.extension ?? null })
    .returning();
  return row!;
}

export async function insertAddress(tx: Tx, a: AddressAttributes): Promise<AddressRow> {
  const [row] = await tx
    .insert(addresses)
    .values({
      name: a.name,
      streetAddress: a.street_address,
      extendedAddress: a.extended_address ?? null,
      locality: a.locality,
      region: a.region,
      postalCode: a.postal_code,
      countryCode: a.country_code,
    })
    .returning();
  return row!;
}

export interface ShipmentContacts {
  email?: EmailAddressRow | undefined;
  shipFromAddress?: AddressRow | undefined;
  shipFromPhone?: PhoneNumberRow | undefined;
  phone?: PhoneNumberRow | undefined;
}

/** The contact rows a shipment row points at, for rendering it. */
export async function loadContacts(
  ex: Executor,
  s: { emailAddressId: number | null; shipFromAddressId: number | null; shipFromPhoneNumberId: number | null; phoneNumberId: number | null },
): Promise<ShipmentContacts> {
  const one = async <T>(p: Promise<T[]>) => (await p)[0];
  return {
    email: s.emailAddressId ? await one(ex.select().from(emailAddresses).where(eq(emailAddresses.id, s.emailAddressId))) : undefined,
    shipFromAddress: s.shipFromAddressId ? await one(ex.select().from(addresses).where(eq(addresses.id, s.shipFromAddressId))) : undefined,
    shipFromPhone: s.shipFromPhoneNumberId
      ? await one(ex.select().from(phoneNumbers).where(eq(phoneNumbers.id, s.shipFromPhoneNumberId)))
      : undefined,
    phone: s.phoneNumberId ? await one(ex.select().from(phoneNumbers).where(eq(phoneNumbers.id, s.phoneNumberId))) : undefined,
  };
}
