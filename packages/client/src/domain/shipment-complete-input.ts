import { z } from 'zod';
import { positiveId } from './validation.ts';
import { transferSource } from './shipment-update-input.ts';

const url = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !/\s/.test(s);
  } catch {
    return false;
  }
}, 'must be an http(s) URL, or several joined by commas');

/** x_mobile_link: one URL or several joined by commas; stored as given, trimmed per part. */
const links = z
  .string()
  .max(4000)
  .transform((s) => s.split(',').map((p) => p.trim()))
  .pipe(z.array(url).min(1))
  .transform((parts) => parts.join(','));

/** Body of PUT|POST /v9/shipments/:id/complete; `tm_mobile_link` is the legacy name. */
export const completeBody = z
  .strictObject({
    x_mobile_link: links.optional(),
    tm_mobile_link: links.optional(),
    transfer_source: transferSource.optional(),
  })
  .refine((b) => !(b.x_mobile_link !== undefined && b.tm_mobile_link !== undefined), {
    message: 'give x_mobile_link or its legacy name tm_mobile_link, not both',
    path: ['tm_mobile_link'],
  })
  .transform(({ tm_mobile_link, ...rest }) => ({ ...rest, x_mobile_link: rest.x_mobile_link ?? tm_mobile_link }));

export const completeCommand = z.strictObject({
  shipment_id: positiveId,
  x_mobile_link: links.optional(),
  transfer_source: transferSource.optional(),
});
export type CompleteCommand = z.output<typeof completeCommand>;
