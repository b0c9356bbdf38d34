import type { AddressRow, EmailAddressRow, PhoneNumberRow } from '../ops/contacts.ts';
import type { LiveShipment } from '../../read/live-shipment.ts';
import { shipmentColumns, toDate, toShipmentRow } from './shipment-columns.ts';

/**
 * A shipment version with the contact rows it shows, as one JSON column of another statement (a
 * webhook claim reads the event's shipment this way, saving a round trip per delivery). `idSql`
 * names the shipment; the column is null when it is null. The shipment's keys are ShipmentRow's
 * (shipment-columns.ts); each contact row is the table's own row.
 */
export function shipmentVersionJson(idSql: string): string {
  return `(select jsonb_build_object('shipment', to_jsonb(x), 'email', to_jsonb(ce), 'shipFromAddress', to_jsonb(ca),
      'shipFromPhone', to_jsonb(cf), 'phone', to_jsonb(cp))
    from (select ${shipmentColumns('s')} from shipments s where s.id = ${idSql}) x
    left join email_addresses ce on ce.id = x."emailAddressId"
    left join addresses ca on ca.id = x."shipFromAddressId"
    left join phone_numbers cf on cf.id = x."shipFromPhoneNumberId"
    left join phone_numbers cp on cp.id = x."phoneNumberId")`;
}

type Json = Record<string, unknown>;
const text = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** What shipmentVersionJson read, as the read endpoints' rows; undefined for a null column. */
export function toShipmentVersion(json: unknown): LiveShipment | undefined {
  const v = json as {
    shipment: Json;
    email: Json | null;
    shipFromAddress: Json | null;
    shipFromPhone: Json | null;
    phone: Json | null;
  } | null;
  if (!v?.shipment) return undefined;
  return {
    shipment: toShipmentRow(v.shipment),
    contacts: {
      email: v.email ? emailRow(v.email) : undefined,
      shipFromAddress: v.shipFromAddress ? addressRow(v.shipFromAddress) : undefined,
      shipFromPhone: v.shipFromPhone ? phoneRow(v.shipFromPhone) : undefined,
      phone: v.phone ? phoneRow(v.phone) : undefined,
    },
  };
}

function emailRow(j: Json): EmailAddressRow {
  return { id: Number(j.id), address: String(j.address), label: text(j.label), updatedAt: toDate(j.updated_at) };
}

function phoneRow(j: Json): PhoneNumberRow {
  return {
    id: Number(j.id),
    label: text(j.label),
    countryCode: String(j.country_code),
    number: String(j.number),
    extension: text(j.extension),
    updatedAt: toDate(j.updated_at),
  };
}

function addressRow(j: Json): AddressRow {
  return {
    id: Number(j.id),
    label: text(j.label),
    name: String(j.name),
    streetAddress: String(j.street_address),
    extendedAddress: text(j.extended_address),
    locality: String(j.locality),
    region: String(j.region),
    postalCode: String(j.postal_code),
    countryCode: String(j.country_code),
  };
}
