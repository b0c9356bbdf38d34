import type { SqlRunner } from '../client.ts';
import type { AddressRow, EmailAddressRow, PhoneNumberRow } from '../ops/contacts.ts';
import type { AddressAttributes, PhoneNumberAttributes } from '../../domain/contact-input.ts';
import { toDate } from './shipment-columns.ts';

// Contact rows are immutable: a shipment that shows new contact details points at new rows.

const INSERT_EMAIL = `
insert into email_addresses (address) values ($1) returning id, address, label, updated_at as "updatedAt"`;

const PHONE_VALUES = `($1, $2, $3, $4)`;
const PHONE_RETURNING = `id, label, country_code as "countryCode", number, extension, updated_at as "updatedAt"`;

const INSERT_PHONE = `
insert into phone_numbers (label, country_code, number, extension) values ${PHONE_VALUES} returning ${PHONE_RETURNING}`;

// One statement for the seller's pickup: the address and the phone number it shows.
const INSERT_ADDRESS_AND_PHONE = `
with p as (insert into phone_numbers (label, country_code, number, extension) values ${PHONE_VALUES} returning ${PHONE_RETURNING}),
a as (insert into addresses (name, street_address, extended_address, locality, region, postal_code, country_code)
      values ($5, $6, $7, $8, $9, $10, $11)
      returning id, label, name, street_address as "streetAddress", extended_address as "extendedAddress",
        locality, region, postal_code as "postalCode", country_code as "countryCode")
select row_to_json(p) as phone, row_to_json(a) as address from p, a`;

const phoneParams = (p: PhoneNumberAttributes) => [p.label ?? null, p.country_code, p.number, p.extension ?? null];

export async function insertEmailAddress(tx: SqlRunner, address: string): Promise<EmailAddressRow> {
  const [row] = await tx.rows<EmailAddressRow>(INSERT_EMAIL, [address]);
  return { ...row!, updatedAt: toDate(row!.updatedAt) };
}

export async function insertPhoneNumber(tx: SqlRunner, p: PhoneNumberAttributes): Promise<PhoneNumberRow> {
  const [row] = await tx.rows<PhoneNumberRow>(INSERT_PHONE, phoneParams(p));
  return { ...row!, updatedAt: toDate(row!.updatedAt) };
}

export async function insertAddressAndPhone(
  tx: SqlRunner,
  a: AddressAttributes,
  p: PhoneNumberAttributes,
): Promise<{ address: AddressRow; phone: PhoneNumberRow }> {
  const [row] = await tx.rows<{ address: AddressRow; phone: PhoneNumberRow }>(INSERT_ADDRESS_AND_PHONE, [
    ...phoneParams(p),
    a.name,
    a.street_address,
    a.extended_address ?? null,
    a.locality,
    a.region,
    a.postal_code,
    a.country_code,
  ]);
  return { address: row!.address, phone: { ...row!.phone, updatedAt: toDate(row!.phone.updatedAt) } };
}
