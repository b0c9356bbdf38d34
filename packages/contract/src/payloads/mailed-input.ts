import { z } from 'zod';
import { MAILED_TYPES, TRACKING_STATUSES } from '../shipments/shipment-types.ts';
import { addressAttributes } from './contact-input.ts';
import { MAX_FILE_BASE64, MAX_FILE_BYTES } from './shipment-files-input.ts';
import { positiveId, textOfAtMost } from './validation.ts';

/**
 * Postal code shapes of the countries whose carriers refuse a malformed one outright; a country
 * not listed takes any code of 2 to 20 characters. Written so no input makes a pattern backtrack.
 */
export const POSTAL_CODE_SHAPES: Readonly<Record<string, { pattern: RegExp; example: string }>> = {
  US: { pattern: /^\d{5}(?:-\d{4})?$/, example: '10001 or 10001-1234' },
  CA: { pattern: /^[ABCEGHJ-NPRSTVXY]\d[A-Z] ?\d[A-Z]\d$/i, example: 'K1A 0B1' },
  GB: { pattern: /^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$/i, example: 'SW1A 1AA' },
  DE: { pattern: /^\d{5}$/, example: '10115' },
  FR: { pattern: /^\d{5}$/, example: '75001' },
  ES: { pattern: /^\d{5}$/, example: '28001' },
  IT: { pattern: /^\d{5}$/, example: '00118' },
  NL: { pattern: /^\d{4} ?[A-Z]{2}$/i, example: '1012 AB' },
  AU: { pattern: /^\d{4}$/, example: '2000' },
  MX: { pattern: /^\d{5}$/, example: '06000' },
  JP: { pattern: /^\d{3}-?\d{4}$/, example: '100-0001' },
};

/** The address a mailed shipment goes to: the contract's address, its postal code checked per country. */
export const shipToAddressAttributes = addressAttributes.superRefine((a, ctx) => {
  const shape = POSTAL_CODE_SHAPES[a.country_code];
  if (shape && !shape.pattern.test(a.postal_code)) {
    ctx.addIssue({ code: 'custom', path: ['postal_code'], message: `is not a postal code of ${a.country_code} (e.g. ${shape.example})` });
  }
});

// "PO Box", "P.O. Box", "PO-Box", "P.0. Box", "POB 12", "Post Office Box", "Postfach" (carriers
// read them alike), looked for in the text's compatibility form (NFKC), so that full-width
// "ＰＯ Ｂｏｘ" and similar spellings are found too (D-171). Between the letters: dots, hyphens,
// underscores, spaces; a zero reads as an O. No two neighbouring parts can match the same
// character, so no input makes it backtrack far.
const SEP = String.raw`[\s._\-]*`;
const PO_BOX = new RegExp(
  String.raw`(?:^|[^\p{L}\p{N}])(?:p${SEP}[o0]${SEP}b(?:[o0]x)?|post${SEP}off?ice${SEP}b[o0]x|postfach)(?:[^\p{L}]|$)`,
  'iu',
);
const isPoBox = (s: string) => PO_BOX.test(s.normalize('NFKC'));

/** FedEx and UPS deliver to doors, not to post office boxes: the field that names one, if any. */
export function poBoxField(
  type: string,
  address: { street_address: string; extended_address?: string | null | undefined },
): string | undefined {
  if (type !== 'FedEx' && type !== 'UPS') return undefined;
  if (isPoBox(address.street_address)) return 'ship_to_address_attributes.street_address';
  if (address.extended_address && isPoBox(address.extended_address)) return 'ship_to_address_attributes.extended_address';
  return undefined;
}

/** The body of PUT /v9/shipments/:id that chooses mailed delivery. */
export const mailBody = z.strictObject({
  type: z.enum(MAILED_TYPES, { message: `must be one of ${MAILED_TYPES.join(', ')}` }),
  service_type: textOfAtMost(64).optional().describe("the carrier's service, e.g. FEDEX_2_DAY, Ground, Priority"),
  ship_to_address_attributes: shipToAddressAttributes,
});

/** A tracking number as given: spaces a person typed are dropped before it is checked. */
export const trackingNumber = textOfAtMost(64, z.string().min(1, 'must not be empty')).transform((s) =>
  s.replace(/\s+/g, '').toUpperCase(),
);

/** Body of PUT /v9/shipments/:id/tracking. */
export const trackingNumberBody = z.strictObject({ tracking_number: trackingNumber });
export const trackingNumberCommand = z.strictObject({
  shipment_id: positiveId,
  tracking_number: z.string().min(1).max(64),
  /** The carrier account's tracker registered for it (its scans then deliver the shipment); absent without an account. */
  tracker_id: z.string().min(1).max(128).optional(),
});
export type TrackingNumberCommand = z.output<typeof trackingNumberCommand>;

const isoInstant = z.iso.datetime({
  offset: true,
  message: 'must be an ISO 8601 date and time with its offset, e.g. 2026-11-21T09:00:00Z',
});

/**
 * A scan's time as a seller gives it: within the years 2000-2100 (what Postgres and every carrier
 * can hold) and at most 10 minutes ahead of now, checked before the command is queued. That it is
 * not before the shipment existed is the command's check.
 */
const scanInstant = isoInstant
  .refine((s) => {
    // Not a date at all is the format's one message.
    const at = Date.parse(s);
    return Number.isNaN(at) || (at >= Date.UTC(2000, 0, 1) && at < Date.UTC(2101, 0, 1));
  }, 'must be a date between the years 2000 and 2100')
  .refine((s) => !(Date.parse(s) > Date.now() + 10 * 60_000), 'must not be more than 10 minutes ahead of now');

/** Body of POST /v9/shipments/:id/tracking_events (the seller, for a carrier without an account). */
export const trackingEventBody = z.strictObject({
  status: z.enum(TRACKING_STATUSES, { message: `must be one of ${TRACKING_STATUSES.join(', ')}` }),
  occurred_at: scanInstant,
  location: textOfAtMost(200).optional(),
  description: textOfAtMost(500).optional(),
});
export const trackingEventCommand = trackingEventBody.extend({ shipment_id: positiveId });
export type TrackingEventCommand = z.output<typeof trackingEventCommand>;

/** Body of POST /v9/shipments/:id/airbill: `{}` buys a label through the carrier account; else the label itself. */
export const airbillBody = z.union([
  z.strictObject({
    airbill: z
      .string()
      .min(1, 'must not be empty')
      .max(MAX_FILE_BASE64, `must be at most ${MAX_FILE_BYTES} bytes`)
      .meta({ contentEncoding: 'base64', description: 'The label as a PDF, base64 (standard alphabet, no line breaks).' }),
    tracking_number: trackingNumber,
  }),
  z.strictObject({}).describe('buy the label through the carrier account (EASYPOST_API_KEY)'),
]);
export type AirbillBody = z.input<typeof airbillBody>;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 in lowercase hex');

/** The command that attaches a label the HTTP side stored (uploaded, or bought through the carrier account). */
export const airbillCommand = z.strictObject({
  shipment_id: positiveId,
  /** Who gives it: the seller, or the buyer of a ProvidedAirbill shipment. */
  by: z.enum(['seller', 'buyer']),
  sha256,
  tracking_number: z.string().min(1).max(64),
  /** An uploaded label's number registered as the carrier account's tracker (best effort, D-119). */
  tracker_id: z.string().min(1).max(128).optional(),
  /** Bought through the carrier account: its label, its tracker, the service it chose and why. */
  purchase: z
    .strictObject({
      provider: z.string().min(1).max(32),
      label_id: z.string().min(1).max(128),
      tracker_id: z.string().max(128).nullable(),
      service: z.string().max(64),
      reason: z.string().max(300),
      estimated_delivery_at: z.string().nullable(),
      rate: z.string().max(32).nullable(),
    })
    .optional(),
});
export type AirbillCommand = z.output<typeof airbillCommand>;

/** One scan of a carrier's webhook, as its adapter reads it. */
export const carrierScan = z.strictObject({
  status: z.enum(TRACKING_STATUSES),
  occurred_at: z.string(),
  location: z.string().max(200).nullable(),
  description: z.string().max(500).nullable(),
});
export type CarrierScan = z.output<typeof carrierScan>;

/** A verified carrier webhook event, as the command that records its scans. */
export const carrierUpdateCommand = z.strictObject({
  shipment_id: positiveId,
  provider: z.string().min(1).max(32),
  event_id: z.string().min(1).max(128),
  tracking_code: z.string().min(1).max(64),
  tracker_id: z.string().max(128).nullable(),
  estimated_delivery_at: z.string().nullable(),
  scans: z.array(carrierScan).max(500),
});
export type CarrierUpdateCommand = z.output<typeof carrierUpdateCommand>;
