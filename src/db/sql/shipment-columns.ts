import type { ShipmentRow } from '../ops/shipment-rows.ts';

/**
 * The select list that reads a shipment row straight into ShipmentRow's property names, so the
 * hot statements need no mapping beyond timestamps (postgres.js hands them over as text under
 * drizzle's parsers, PGlite as Date).
 */
export function shipmentColumns(alias: string): string {
  const a = alias ? `${alias}.` : '';
  return `${a}id, ${a}order_id as "orderId", ${a}type, ${a}state, ${a}snapshot, ${a}replaced_by as "replacedBy",
    ${a}replaced_at as "replacedAt", ${a}ship_to_name as "shipToName", ${a}email_address_id as "emailAddressId",
    ${a}x_mobile_link as "xMobileLink", ${a}transfer_source as "transferSource", ${a}ship_from_name as "shipFromName",
    ${a}ship_from_address_id as "shipFromAddressId", ${a}ship_from_phone_number_id as "shipFromPhoneNumberId",
    ${a}phone_number_id as "phoneNumberId", ${a}pickup_time_range as "pickupTimeRange",
    ${a}pickup_instructions as "pickupInstructions", ${a}notes, ${a}created_at as "createdAt", ${a}delivered_at as "deliveredAt"`;
}

export function toDate(v: unknown): Date {
  return v instanceof Date ? v : new Date(String(v));
}

export function toDateOrNull(v: unknown): Date | null {
  return v === null || v === undefined ? null : toDate(v);
}

export function toShipmentRow(raw: Record<string, unknown>): ShipmentRow {
  const row = raw as unknown as ShipmentRow;
  return {
    ...row,
    replacedAt: toDateOrNull(raw.replacedAt),
    createdAt: toDate(raw.createdAt),
    deliveredAt: toDateOrNull(raw.deliveredAt),
  };
}
