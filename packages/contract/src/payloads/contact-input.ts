import { z } from 'zod';
import { COUNTRY_CODES } from './country-codes.ts';
import { ONE_LINE_REFUSED, ONE_LINE_SPACE, refuseUnsafe, textOfAtMost } from './validation.ts';

// Some character other than white space, and nothing Postgres cannot store; written so that no
// input makes it backtrack (white space first, then a character that is not).
const NOT_BLANK = /^\s*[^\s\u0000\uD800-\uDFFF][^\u0000\uD800-\uDFFF]*$/u;
// What the document says: one line (refuseUnsafe says so, before the trim could hide a line break).
const NOT_BLANK_LINE = `^${ONE_LINE_SPACE}*[^\\s${ONE_LINE_REFUSED}][^${ONE_LINE_REFUSED}]*$`;

/** Required text: trimmed, not blank, one line, at most `max` characters once trimmed. */
const text = (max: number) =>
  textOfAtMost(max, z.string().superRefine(refuseUnsafe('one')).regex(NOT_BLANK, 'must not be empty').trim()).meta({
    pattern: NOT_BLANK_LINE,
  });

/** Keys: label, country_code (+ and 1–3 digits), number (4–15 digits), extension (docs/API.md §Shipments). */
export const phoneNumberAttributes = z.strictObject({
  label: textOfAtMost(64).nullable().optional(),
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
  extended_address: textOfAtMost(200).nullable().optional(),
  locality: text(100),
  region: text(100),
  postal_code: text(20),
  country_code: z.enum([...COUNTRY_CODES] as [string, ...string[]], { error: 'must be an ISO 3166-1 alpha-2 code, e.g. US' }),
});

export type PhoneNumberAttributes = z.output<typeof phoneNumberAttributes>;
export type AddressAttributes = z.output<typeof addressAttributes>;
export { text as boundedText };
