import { getTableColumns } from 'drizzle-orm';
import type { ShipmentRow } from '../ops/shipment-rows.ts';
import { shipments } from '../schema/orders.ts';
import type { Placeholders } from './named-params.ts';

/**
 * The shipments table as the raw statements see it, read once from the Drizzle table at module
 * load: the select list, the insert lists and the row mapper all come from here, so a column
 * added to the table reaches every one of them, and the statement texts built from them stay
 * constants (postgres.js prepares by text).
 */
export type ShipmentKey = keyof ShipmentRow;

export interface ShipmentColumn {
  key: ShipmentKey;
  name: string;
  /** What follows the placeholder: the embedded PGlite infers no type from a bare parameter. */
  cast: string;
  /** jsonb goes in as text (hence `::text::jsonb`); timestamps come back as text or Date. */
  kind: 'json' | 'date' | 'plain';
  notNull: boolean;
}

// How each column type crosses into a statement. A column of a type not listed here stops the
// service at load: decide its cast and encoding here rather than let it pass through uncast.
const BY_TYPE: Record<string, Pick<ShipmentColumn, 'cast' | 'kind'>> = {
  PgBigSerial53: { cast: '::bigint', kind: 'plain' },
  PgBigInt53: { cast: '::bigint', kind: 'plain' },
  PgInteger: { cast: '::int', kind: 'plain' },
  PgBoolean: { cast: '::boolean', kind: 'plain' },
  // Uncast, as ever: the insert's target column gives the parameter its type.
  PgText: { cast: '', kind: 'plain' },
  PgJsonb: { cast: '::text::jsonb', kind: 'json' },
  PgTimestamp: { cast: '::timestamptz', kind: 'date' },
};

export const SHIPMENT_COLUMNS: readonly ShipmentColumn[] = Object.entries(getTableColumns(shipments)).map(([key, c]) => {
  const type = BY_TYPE[c.columnType];
  if (!type) throw new Error(`shipments.${c.name}: ${c.columnType} has no rule in shipment-columns.ts`);
  return { key: key as ShipmentKey, name: c.name, ...type, notNull: c.notNull };
});

/** Why an insert leaves a column out, by column: each statement names its own. */
export type SetByStatement = Partial<Record<ShipmentKey, string>>;

/** What every insert of a new shipment version leaves to the statement or the table. */
export const NEW_VERSION_SETS = {
  replacedBy: 'null: a row is inserted live; only the next update turns it into a tombstone',
  replacedAt: 'null, with replacedBy',
  createdAt: "the column's default, fulfil_now(): when this version was written, by the order's clock (the database's, or its test clock)",
} as const satisfies SetByStatement;

/** Some of the columns, with their keys in the type: what an insert's values must give. */
export type ColumnSet<K extends ShipmentKey> = readonly ShipmentColumn[] & { readonly columnKeys?: K };
export type KeysOf<C> = C extends ColumnSet<infer K> ? K : never;

/** The columns an insert takes from the row it is given: all but those it sets itself. */
export function insertedColumns<const S extends SetByStatement>(sets: S): ColumnSet<Exclude<ShipmentKey, keyof S>> {
  return SHIPMENT_COLUMNS.filter((c) => !(c.key in sets));
}

/** `order_id, type, …` for an insert's column list. */
export function insertColumnList(columns: readonly ShipmentColumn[]): string {
  return columns.map((c) => c.name).join(', ');
}

/**
 * A shipment's values among a statement's named parameters, each under `shipment.` and its
 * property name: apart from the statement's own parameters, whatever columns are added later.
 */
export type ShipmentParams<K extends ShipmentKey> = { [P in K as `shipment.${P}`]: unknown };

const param = (c: ShipmentColumn) => `shipment.${c.key}`;

/** The matching placeholders, each with its column's cast. */
export function insertValueList<K extends ShipmentKey>(columns: ColumnSet<K>, p: Placeholders<ShipmentParams<K>>): string {
  const named = p as unknown as Record<string, string>;
  return columns.map((c) => `${named[param(c)]}${c.cast}`).join(', ');
}

/** A row's values for those placeholders, encoded as the casts expect. */
export function shipmentValues<K extends ShipmentKey>(row: ShipmentRow, columns: ColumnSet<K>): ShipmentParams<K> {
  const values: Record<string, unknown> = {};
  for (const c of columns) values[param(c)] = encode(c, row[c.key]);
  return values as ShipmentParams<K>;
}

function encode(c: ShipmentColumn, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (c.kind === 'json') return JSON.stringify(v);
  if (c.kind === 'date') return toDate(v).toISOString();
  return v;
}

/**
 * The select list that reads a shipment row straight into ShipmentRow's property names, so the
 * hot statements need no mapping beyond timestamps (postgres.js hands them over as text under
 * drizzle's parsers, PGlite as Date).
 */
export function shipmentColumns(alias: string): string {
  const a = alias ? `${alias}.` : '';
  return SHIPMENT_COLUMNS.map((c) => (c.name === c.key ? `${a}${c.name}` : `${a}${c.name} as "${c.key}"`)).join(', ');
}

export function toDate(v: unknown): Date {
  return v instanceof Date ? v : new Date(String(v));
}

export function toDateOrNull(v: unknown): Date | null {
  return v === null || v === undefined ? null : toDate(v);
}

const DATES = SHIPMENT_COLUMNS.filter((c) => c.kind === 'date');

/** A row read by shipmentColumns (directly, or through to_jsonb), with its timestamps as Dates. */
export function toShipmentRow(raw: Record<string, unknown>): ShipmentRow {
  const row: Record<string, unknown> = { ...raw };
  for (const c of DATES) row[c.key] = c.notNull ? toDate(raw[c.key]) : toDateOrNull(raw[c.key]);
  return row as ShipmentRow;
}
