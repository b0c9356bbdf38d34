import type { SqlRunner } from '../client.ts';
import type { AddressRow, EmailAddressRow, PhoneNumberRow } from '../ops/contacts.ts';
import type { AddressAttributes, PhoneNumberAttributes } from '@fulfil/contract';
import { named, type Placeholders } from './named-params.ts';
import { toDate } from './shipment-columns.ts';

// Contact rows are immutable: a shipment that shows new contact details points at new rows.

const INSERT_EMAIL = `
insert into email_addresses (address) values ($1) returning id, address, label, updated_at as "updatedAt"`;

interface PhoneValues {
  phoneLabel: string | null;
  phoneCountryCode: string;
  phoneNumber: string;
  phoneExtension: string | null;
}

interface AddressValues {
  name: string;
  streetAddress: string;
  extendedAddress: string | null;
  locality: string;
  region: string;
  postalCode: string;
  countryCode: string;
}

const phoneInsert = (p: Placeholders<PhoneValues>) => `insert into phone_numbers (label, country_code, number, extension)
  values (${p.phoneLabel}, ${p.phoneCountryCode}, ${p.phoneNumber}, ${p.phoneExtension})
  returning id, label, country_code as "countryCode", number, extension, updated_at as "updatedAt"`;

const INSERT_PHONE = named<PhoneValues>((p) => `\n${phoneInsert(p)}`);

// One statement for the seller's pickup: the address and the phone number it shows.
const INSERT_ADDRESS_AND_PHONE = named<PhoneValues & AddressValues>(
  (p) => `
with p as (${phoneInsert(p)}),
a as (insert into addresses (name, street_address, extended_address, locality, region, postal_code, country_code)
      values (${p.name}, ${p.streetAddress}, ${p.extendedAddress}, ${p.locality}, ${p.region}, ${p.postalCode}, ${p.countryCode})
      returning id, label, name, street_address as "streetAddress", extended_address as "extendedAddress",
        locality, region, postal_code as "postalCode", country_code as "countryCode")
select row_to_json(p) as phone, row_to_json(a) as address from p, a`,
);

const phoneValues = (p: PhoneNumberAttributes): PhoneValues => ({
  phoneLabel: p.label ?? null,
  phoneCountryCode: p.country_code,
  phoneNumber: p.number,
  phoneExtension: p.extension ?? null,
});

export async function insertEmailAddress(tx: SqlRunner, address: string): Promise<EmailAddressRow> {
  const [row] = await tx.rows<EmailAddressRow>(INSERT_EMAIL, [address]);
  return { ...row!, updatedAt: toDate(row!.updatedAt) };
}

export async function insertPhoneNumber(tx: SqlRunner, p: PhoneNumberAttributes): Promise<PhoneNumberRow> {
  const [row] = await tx.rows<PhoneNumberRow>(INSERT_PHONE.text, INSERT_PHONE.params(phoneValues(p)));
  return { ...row!, updatedAt: toDate(row!.updatedAt) };
}

export async function insertAddressAndPhone(
  tx: SqlRunner,
  a: AddressAttributes,
  p: PhoneNumberAttributes,
): Promise<{ address: AddressRow; phone: PhoneNumberRow }> {
  const [row] = await tx.rows<{ address: AddressRow; phone: PhoneNumberRow }>(
    INSERT_ADDRESS_AND_PHONE.text,
    INSERT_ADDRESS_AND_PHONE.params({
      ...phoneValues(p),
      name: a.name,
      streetAddress: a.street_address,
      extendedAddress: a.extended_address ?? null,
      locality: a.locality,
      region: a.region,
      postalCode: a.postal_code,
      countryCode: a.country_code,
    }),
  );
  return { address: row!.address, phone: { ...row!.phone, updatedAt: toDate(row!.phone.updatedAt) } };
}

const INSERT_ADDRESS = named<AddressValues>(
  (p) => `
insert into addresses (name, street_address, extended_address, locality, region, postal_code, country_code)
values (${p.name}, ${p.streetAddress}, ${p.extendedAddress}, ${p.locality}, ${p.region}, ${p.postalCode}, ${p.countryCode})
returning id, label, name, street_address as "streetAddress", extended_address as "extendedAddress",
  locality, region, postal_code as "postalCode", country_code as "countryCode"`,
);

/** A mailed shipment's address, alone. */
export async function insertAddress(tx: SqlRunner, a: AddressAttributes): Promise<AddressRow> {
  const [row] = await tx.rows<AddressRow>(
    INSERT_ADDRESS.text,
    INSERT_ADDRESS.params({
      name: a.name,
      streetAddress: a.street_address,
      extendedAddress: a.extended_address ?? null,
      locality: a.locality,
      region: a.region,
      postalCode: a.postal_code,
      countryCode: a.country_code,
    }),
  );
  return row!;
}
