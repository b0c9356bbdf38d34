import { fedex, getTracking, ups, usps, type TrackingCourier } from 'ts-tracking-number';
import { InvalidParams, type MailedType } from '@fulfil/contract';
import { refuseTestCodeOnLive, testCodeOf } from '../sandbox/carrier-test-codes.ts';

/** The courier codes of ts-tracking-number that are a mailed type's carrier. */
const COURIER_OF: Readonly<Record<string, MailedType>> = { fedex: 'FedEx', ups: 'UPS', usps: 'USPS' };

export interface TrackedNumber {
  number: string;
  /** The carrier the number belongs to, by its format and check digit; null when none is known. */
  carrier: string | null;
  /** The carrier's public tracking page for this number, when known. */
  trackingUrl: string | null;
}

/** What the number is, by its format and check digit (ts-tracking-number, after tracking_number_data). */
export function detectTrackingNumber(number: string): TrackedNumber {
  const found = getTracking(number);
  if (!found) return { number, carrier: null, trackingUrl: null };
  const carrier = COURIER_OF[found.courier.code] ?? found.courier.name;
  return { number, carrier, trackingUrl: found.trackingUrl ? found.trackingUrl.replace('%s', encodeURIComponent(number)) : null };
}

/**
 * A tracking number must be one of the shipment's carrier (400 otherwise, saying which carrier the
 * number looks like, if any). A buyer's own label (ProvidedAirbill) may be of FedEx, UPS or USPS.
 * EasyPost's test codes (src/sandbox/carrier-test-codes.ts) fit a test order's shipment of any
 * carrier, and no live one (400 naming them).
 */
export function assertTrackingFits(type: MailedType, number: string, opts: { livemode: boolean; field?: string }): TrackedNumber {
  const field = opts.field ?? 'tracking_number';
  if (opts.livemode) refuseTestCodeOnLive(number, field);
  else if (testCodeOf(number)) return { number, carrier: null, trackingUrl: null };
  const tracked = detectTrackingNumber(number);
  const fits =
    type === 'ProvidedAirbill'
      ? tracked.carrier === 'FedEx' || tracked.carrier === 'UPS' || tracked.carrier === 'USPS'
      : tracked.carrier === type;
  if (fits) return tracked;
  const expected = type === 'ProvidedAirbill' ? 'FedEx, UPS or USPS' : type;
  const misdigited = tracked.carrier ? undefined : checkDigitWrongFor(type, number);
  const err = new InvalidParams(
    tracked.carrier
      ? `${field}: ${number} is a ${tracked.carrier} tracking number, not one of ${expected}`
      : misdigited
        ? `${field}: ${number} has the form of a ${misdigited} tracking number, but its check digit is wrong (a digit mistyped?)`
        : `${field}: ${number} is not a tracking number of ${expected} (nor of any carrier known)`,
    field,
  );
  err.extra.detected_carrier = tracked.carrier;
  throw err;
}

const COURIERS: ReadonlyArray<[MailedType, TrackingCourier]> = [
  ['FedEx', fedex as TrackingCourier],
  ['UPS', ups as TrackingCourier],
  ['USPS', usps as TrackingCourier],
];

/**
 * The carrier (of those the shipment's type allows) whose number format, check digit aside, the
 * number has: one mistyped digit fails the check digit, and "not a tracking number" would send
 * the seller looking at the wrong thing.
 */
function checkDigitWrongFor(type: MailedType, number: string): MailedType | undefined {
  const compact = number.replace(/[^a-zA-Z\d]/g, '');
  for (const [carrier, courier] of COURIERS) {
    if (type !== 'ProvidedAirbill' && type !== carrier) continue;
    for (const format of courier.tracking_numbers) {
      if (!format.validation.checksum) continue;
      const pattern = typeof format.regex === 'string' ? format.regex : format.regex.join('');
      if (new RegExp(`^${pattern}$`).test(compact)) return carrier;
    }
  }
  return undefined;
}

/** The carrier's page for a number, for the operators' view. */
export function trackingUrlOf(number: string | null): string | null {
  return number ? detectTrackingNumber(number).trackingUrl : null;
}

/** The envelope a number names: its carrier and the number as that carrier reads it (D-150). */
export interface NumberKey {
  carrier: string;
  key: string;
}

// USPS prints the IMpb barcode with its routing prefix, 420 and the ZIP (5 or 9 digits): the same
// envelope as the number without it.
const USPS_ROUTED = /^420(?:\d{9}|\d{5})(\d{20,22})$/;

/**
 * The claim key of a number: letters upper-cased, everything but letters and digits dropped, and
 * per carrier the spellings that name the same envelope made one (USPS's routing prefix).
 * `fallbackCarrier`: for a number no format is known of (a carrier's webhook may name one).
 */
export function numberKey(number: string, fallbackCarrier: string | null = null): NumberKey {
  let key = number.toUpperCase().replace(/[^0-9A-Z]/g, '');
  const carrier = detectTrackingNumber(key).carrier ?? fallbackCarrier ?? 'unknown';
  if (carrier === 'USPS') {
    const bare = USPS_ROUTED.exec(key)?.[1];
    if (bare && detectTrackingNumber(bare).carrier === 'USPS') key = bare;
  }
  return { carrier, key };
}
