import { getTableColumns, type Table } from 'drizzle-orm';
import type { LiveShipment } from '../ops/shipment-rows.ts';
import { addresses, emailAddresses, phoneNumbers } from '../schema/contact.ts';
import { SHIPMENT_COLUMNS, shipmentColumns, toDateOrNull, toShipmentRow } from './shipment-columns.ts';

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

/**
 * A shipment row `alias` as jsonb under ShipmentRow's keys: the `shipment` object of
 * shipmentVersionJson, and what an in-place change compares before and after.
 */
export function shipmentRowJson(alias: string): string {
  return `jsonb_build_object(${SHIPMENT_COLUMNS.map((c) => `'${c.key}', ${alias}.${c.name}`).join(', ')})`;
}

/**
 * A statement that changes shipment `idSql` in place (it keeps its id: a completion, a
 * cancellation, a carrier's scan) names, on the event it appends, what it changed: the values
 * the row had before, of the columns whose values differ (`shipment_before`, in ShipmentRow's
 * keys). Every event before it that left this shipment version is then still shown as it left
 * it (shipmentVersionAsLeftJson), with no write to those events. `shipmentWasCte` reads the row
 * as the statement found it (every part of a statement sees the row before its update changes
 * it); the statement's update returns `${shipmentRowJson('shipments')} as after`, and
 * shipmentBeforeOf is the value for appendEventCtes.
 */
export const shipmentWasCte = (idSql: string) => `was as (select ${shipmentRowJson('s')} as row from shipments s where s.id = ${idSql})`;

/** What an in-place change changed: the former values of the columns it changed, by ShipmentRow key; null when nothing. */
export type ShipmentBefore = Record<string, unknown> | null;

/** The changed columns' former values, given `was` and a relation `after` names the new row's column of. */
export const shipmentBeforeOf = (afterSql: string) =>
  `(select jsonb_object_agg(d.key, d.value) from was cross join jsonb_each(was.row) d where d.value is distinct from (${afterSql}) -> d.key)`;

/**
 * The shipment version event `e` left, in shipmentVersionJson's form: the version row as it is
 * now, with each column an in-place change made after the event put back as that change found it
 * (the earliest such change of each column after the event wins). The contact rows are those the
 * row names now: no in-place change names other contacts (new details are a new version, rule U1).
 */
export function shipmentVersionAsLeftJson(e: string): string {
  return `(select case when later.before is null then v.v else jsonb_set(v.v, '{shipment}', (v.v -> 'shipment') || later.before) end
    from (select ${shipmentVersionJson(`${e}.new_shipment_id`)} as v) v
    cross join lateral (select jsonb_object_agg(k.key, k.value) as before from (
      select distinct on (d.key) d.key, d.value from shipment_events l cross join jsonb_each(l.shipment_before) d
      where l.order_id = ${e}.order_id and l.seq > ${e}.seq and l.shipment_id = ${e}.new_shipment_id and l.shipment_before is not null
      order by d.key, l.seq) k) later)`;
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
