import { getTableColumns, type Table } from 'drizzle-orm';
import type { LiveShipment } from '../ops/shipment-rows.ts';
import { addresses, emailAddresses, phoneNumbers } from '../schema/contact.ts';
import { shipmentColumns, toDateOrNull, toShipmentRow } from './shipment-columns.ts';

/**
 * A shipment version with the contact rows it shows, as one JSON column of another statement (a
 * webhook claim reads the event's shipment this way, saving a round trip per delivery). `idSql`
 * names the shipment; the column is null when it is null. The shipment's keys are ShipmentRow's
 * (shipment-columns.ts); each contact row is the table's own row.
 */
export function shipmentVersionJson(idSql: string): string {
  return `(select jsonb_build_object('shipment', to_jsonb(x), 'email', to_jsonb(ce), 'shipFromAddress', to_jsonb(ca),
      'shipFromPhone', to_jsonb(cf), 'phone', to_jsonb(cp), 'shipToAddress', to_jsonb(ct))
    from (select ${shipmentColumns('s')} from shipments s where s.id = ${idSql}) x
    left join email_addresses ce on ce.id = x."emailAddressId"
    left join addresses ca on ca.id = x."shipFromAddressId"
    left join phone_numbers cf on cf.id = x."shipFromPhoneNumberId"
    left join phone_numbers cp on cp.id = x."phoneNumberId"
    left join addresses ct on ct.id = x."shipToAddressId")`;
}

type Json = Record<string, unknown>;

/**
 * A contact row from its to_jsonb, by the table's own columns (the JSON keys are the column
 * names): a column added to a contact table is read too. Timestamps become Dates.
 */
function rowReader<T extends Table>(table: T): (j: Json) => T['$inferSelect'] {
  const columns = Object.entries(getTableColumns(table)).map(([key, c]) => ({ key, name: c.name, date: c.dataType === 'date' }));
  return (j) => {
    const row: Json = {};
    for (const c of columns) row[c.key] = c.date ? toDateOrNull(j[c.name]) : (j[c.name] ?? null);
    return row as T['$inferSelect'];
  };
}
const emailRow = rowReader(emailAddresses);
const addressRow = rowReader(addresses);
const phoneRow = rowReader(phoneNumbers);

/** What shipmentVersionJson read, as the read endpoints' rows; undefined for a null column. */
export function toShipmentVersion(json: unknown): LiveShipment | undefined {
  const v = json as {
    shipment: Json;
    email: Json | null;
    shipFromAddress: Json | null;
    shipFromPhone: Json | null;
    phone: Json | null;
    shipToAddress?: Json | null;
  } | null;
  if (!v?.shipment) return undefined;
  return {
    shipment: toShipmentRow(v.shipment),
    contacts: {
      email: v.email ? emailRow(v.email) : undefined,
      shipFromAddress: v.shipFromAddress ? addressRow(v.shipFromAddress) : undefined,
      shipFromPhone: v.shipFromPhone ? phoneRow(v.shipFromPhone) : undefined,
      phone: v.phone ? phoneRow(v.phone) : undefined,
      shipToAddress: v.shipToAddress ? addressRow(v.shipToAddress) : undefined,
    },
  };
}
