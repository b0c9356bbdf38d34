import { z } from 'zod';
import { BESIDE_FIELD_RULES, ONE_LINE_REFUSED, ONE_LINE_SPACE, positiveId, textOfAtMost } from './validation.ts';
import { completionTickets, platformSource } from './ticket-delivery-input.ts';

// An http(s) URL: scheme (any case), a host (a name or a bracketed IPv6 address), an optional
// port, then anything but whitespace, commas and what one line may not hold (controls, what
// Postgres cannot store). A pattern rather than a URL parser, so that the document states exactly the rule
// that is checked; Unicode semantics (the `u` flag), as JSON Schema reads a pattern.
const FREE = String.raw`\s,` + ONE_LINE_REFUSED;
const HTTP_URL = String.raw`[Hh][Tt][Tt][Pp][Ss]?://(?:\[[0-9A-Fa-f:.]+\]|[^${FREE}/?#@:\[\]]+)(?::\d{1,5})?(?:[/?#][^${FREE}]*)?`;
const SP = `${ONE_LINE_SPACE}*`;
const LINKS = new RegExp(`^${SP}${HTTP_URL}(?:${SP},${SP}${HTTP_URL})*${SP}$`, 'u');

/** x_mobile_link: one URL or several joined by commas; stored as given, trimmed per part. */
const links = textOfAtMost(4000, z.string().regex(LINKS, 'must be an http(s) URL, or several joined by commas')).transform((s) =>
  s
    .split(',')
    .map((p) => p.trim())
    .join(','),
);

/** Body of PUT|POST /v9/shipments/:id/complete; `tm_mobile_link` is the legacy name. */
export const completeBody = z
  .strictObject({
    x_mobile_link: links.optional(),
    tm_mobile_link: links.optional(),
    transfer_source: platformSource.optional(),
    tickets: completionTickets.optional(),
  })
  .refine((b) => !(b.x_mobile_link !== undefined && b.tm_mobile_link !== undefined), {
    message: 'give x_mobile_link or its legacy name tm_mobile_link, not both',
    path: ['tm_mobile_link'],
    ...BESIDE_FIELD_RULES,
  })
  // The same rule, as the document states it.
  .meta({ not: { required: ['x_mobile_link', 'tm_mobile_link'] } })
  .transform(({ tm_mobile_link, ...rest }) => ({ ...rest, x_mobile_link: rest.x_mobile_link ?? tm_mobile_link }));

export const completeCommand = z.strictObject({
  shipment_id: positiveId,
  x_mobile_link: links.optional(),
  transfer_source: platformSource.optional(),
  tickets: completionTickets.optional(),
});
export type CompleteCommand = z.output<typeof completeCommand>;
