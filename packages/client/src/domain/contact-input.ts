import { z } from 'zod';
import { COUNTRY_CODES } from './country-codes.ts';

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);

/** Keys: label, country_code (+ and 1–3 digits), number (4–15 digits), extension (docs/API.md §Shipments). */
export const phoneNumberAttributes = z.strictObject({
  label: z.string().max(64).nullable().optional(),
  country_code: z.string().regex(/^\+\d{1,3}$/, 'must be + followed by 1 to 3 digits'),
  number: z.string().regex(/^\d{4,15}$/, 'must be 4 to 15 digits'),
  extension: z
    .string()
    .regex(/^\d{0,10}$/, 'must be up to 10 digits')
    .nullable()
    .optional(),
});

export const addressAttributes = z.strictObject({
  name: text(200),
  street_address: text(200),
  extended_address: z.string().max(200).nullable().optional(),
  locality: text(100),
  region: text(100),
  postal_code: text(20),
  country_code: z.string().refine((c) => COUNTRY_CODES.has(c), 'must be an ISO 3166-1 alpha-2 code, e.g. US'),
});

export type PhoneNumberAttributes = z.output<typeof phoneNumberAttributes>;
export type AddressAttributes = z.output<typeof addressAttributes>;
export { text as boundedText };
