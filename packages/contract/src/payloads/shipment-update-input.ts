import { z } from 'zod';
import { InvalidParams } from '../errors.ts';
import { addressAttributes, boundedText, phoneNumberAttributes } from './contact-input.ts';
import { acceptedEnum } from './accepted-enum.ts';
import { parseOrThrow, positiveId, textOfAtMost } from './validation.ts';
import { mailBody } from './mailed-input.ts';

/** Legacy type names of existing clients, answered with the new names (docs/API.md §Shipments). */
const LEGACY_TRANSFER_TYPES = { TMMobile: 'XMobile', TMMobileLink: 'XMobileLink', FlashSeats: 'XSeats' } as const;
export const TRANSFER_TYPES = ['XMobile', 'XMobileLink', 'XSeats', 'Eticket'] as const;
/** What a caller may send as mobile_transfer_type: a type, or a legacy name of one. */
export type TransferTypeInput = (typeof TRANSFER_TYPES)[number] | keyof typeof LEGACY_TRANSFER_TYPES;

export const transferSource = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'must be 1 to 32 characters of A-Z a-z 0-9 _ -');

export const mobileTransferBody = z.strictObject({
  // Typed by its input: a typed producer cannot even compile an unknown transfer type.
  mobile_transfer_type: acceptedEnum('mobile_transfer_type', TRANSFER_TYPES, LEGACY_TRANSFER_TYPES).meta({
    description: `${Object.keys(LEGACY_TRANSFER_TYPES).join(', ')} are legacy names of ${Object.values(LEGACY_TRANSFER_TYPES).join(', ')}; the answer uses the new name`,
  }),
  transfer_source: transferSource.optional(),
});

export const sellerPickupBody = z.strictObject({
  ship_from_name: boundedText(200),
  ship_from_phone_number_attributes: phoneNumberAttributes,
  ship_from_address_attributes: addressAttributes,
  pickup_time_range: boundedText(200),
  pickup_instructions: textOfAtMost(2000, undefined, 'many').nullable().optional(),
});

export const buyerPickupBody = z.strictObject({
  ship_to_name: boundedText(200),
  phone_number_attributes: phoneNumberAttributes,
  notes: textOfAtMost(2000, undefined, 'many').nullable().optional(),
});

export const updateCommand = z.discriminatedUnion('operation', [
  mobileTransferBody.extend({ operation: z.literal('mobile_transfer'), shipment_id: positiveId }),
  sellerPickupBody.extend({ operation: z.literal('seller_pickup'), shipment_id: positiveId }),
  buyerPickupBody.extend({ operation: z.literal('buyer_pickup'), shipment_id: positiveId }),
  mailBody.extend({ operation: z.literal('mail'), shipment_id: positiveId }),
]);
export type UpdateCommand = z.output<typeof updateCommand>;
export type UpdateOperation = UpdateCommand['operation'];

const BODY_SCHEMAS = {
  mobile_transfer: mobileTransferBody,
  seller_pickup: sellerPickupBody,
  buyer_pickup: buyerPickupBody,
  mail: mailBody,
} as const;

const OPERATION_KEYS: Record<UpdateOperation, readonly string[]> = {
  mobile_transfer: Object.keys(mobileTransferBody.shape),
  seller_pickup: Object.keys(sellerPickupBody.shape),
  buyer_pickup: Object.keys(buyerPickupBody.shape),
  mail: Object.keys(mailBody.shape),
};
// Keys that say which operation a body is; transfer_source alone does not.
const MARKERS: Record<UpdateOperation, readonly string[]> = {
  mobile_transfer: ['mobile_transfer_type'],
  seller_pickup: OPERATION_KEYS.seller_pickup,
  buyer_pickup: OPERATION_KEYS.buyer_pickup,
  mail: ['type', 'ship_to_address_attributes'],
};

/**
 * A PUT /v9/shipments/:id body is exactly one of three operations (docs/API.md §Shipments); which one is told
 * by its keys, and a body that mixes them is refused rather than guessed at.
 */
export function updateCommandFromBody(shipmentId: number, body: unknown): UpdateCommand {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidParams(
      'body: must be a JSON object: a mobile transfer, seller local pickup, buyer local pickup or mailed delivery',
      'body',
    );
  }
  const keys = Object.keys(body);
  const matched = (Object.keys(MARKERS) as UpdateOperation[]).filter((op) => MARKERS[op].some((k) => keys.includes(k)));
  if (matched.length === 0) {
    throw new InvalidParams(
      'body: must carry mobile_transfer_type, seller local pickup fields (ship_from_…), buyer local pickup fields (ship_to_name, phone_number_attributes) or mailed delivery (type, ship_to_address_attributes)',
      'body',
    );
  }
  if (matched.length > 1) {
    throw new InvalidParams(`body: mixes operations (${matched.join(' and ')}); send one per request`, 'body');
  }
  const operation = matched[0]!;
  // The body alone first, so a body that itself names `operation` or `shipment_id` is refused as
  // an unknown field rather than silently overridden.
  const parsed = parseOrThrow(BODY_SCHEMAS[operation], body);
  return parseOrThrow(updateCommand, { ...parsed, operation, shipment_id: shipmentId });
}
