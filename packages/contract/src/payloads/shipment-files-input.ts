import { z } from 'zod';
import { positiveId, textOfAtMost } from './validation.ts';

/** The largest file an upload may carry (decoded): 10 MiB. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** The largest request body of an upload route (POST …/etickets, …/transfer_verifications): 25 MiB. */
export const MAX_UPLOAD_REQUEST_BYTES = 25 * 1024 * 1024;
/** The most files one upload may carry. */
export const MAX_FILES_PER_UPLOAD = 100;
/** Base64 of MAX_FILE_BYTES: 4 characters per 3 bytes, padded. */
export const MAX_FILE_BASE64 = Math.ceil(MAX_FILE_BYTES / 3) * 4;

/** Standard base64 (RFC 4648 §4) of a file, without line breaks; checked when decoded. */
const base64File = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_FILE_BASE64, `must be at most ${MAX_FILE_BYTES} bytes (${MAX_FILE_BASE64} base64 characters)`)
  .meta({ contentEncoding: 'base64' });

const seat = textOfAtMost(32).meta({ description: 'The seat this ticket is for.' });
const barcode = textOfAtMost(200).meta({ description: 'The ticket’s barcode, as printed.' });

/** Body of POST /v9/shipments/:id/etickets. */
export const eticketsBody = z.strictObject({
  etickets: z
    .array(
      z.strictObject({
        eticket: base64File.meta({ description: 'The PDF, base64 (standard alphabet, no line breaks).' }),
        seat: seat.optional(),
        barcode: barcode.optional(),
      }),
    )
    .min(1, 'must hold at least one e-ticket')
    .max(MAX_FILES_PER_UPLOAD, `must hold at most ${MAX_FILES_PER_UPLOAD} e-tickets`),
});
export type EticketsBody = z.input<typeof eticketsBody>;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 in lowercase hex');

/**
 * The job of an upload: the files are already stored (src/domain/file-upload.ts), the command
 * names them by hash. File bytes never travel in a job.
 */
export const eticketsCommand = z.strictObject({
  shipment_id: positiveId,
  etickets: z
    .array(z.strictObject({ sha256, seat: seat.optional(), barcode: barcode.optional() }))
    .min(1)
    .max(MAX_FILES_PER_UPLOAD),
});
export type EticketsCommand = z.output<typeof eticketsCommand>;

/** Body of POST /v9/shipments/:id/transfer_verifications. */
export const transferVerificationBody = z.strictObject({
  files: z
    .array(
      z.strictObject({
        file: base64File.meta({ description: 'A PNG or JPEG image, or a PDF, base64 (standard alphabet, no line breaks).' }),
        note: textOfAtMost(2000, undefined, 'many').optional(),
      }),
    )
    .min(1, 'must hold at least one file')
    .max(10, 'must hold at most 10 files'),
});
export type TransferVerificationBody = z.input<typeof transferVerificationBody>;

export const transferVerificationCommand = z.strictObject({
  shipment_id: positiveId,
  files: z
    .array(z.strictObject({ sha256, note: textOfAtMost(2000, undefined, 'many').optional() }))
    .min(1)
    .max(10),
});
export type TransferVerificationCommand = z.output<typeof transferVerificationCommand>;

/** Body of POST /v9/shipments/:id/etickets/link. */
export const eticketLinkBody = z.strictObject({
  eticket_id: positiveId.optional(),
  /** How long the link works, in minutes (default 1440: one day; at most 10080: a week). */
  expires_in_minutes: z.number().int().min(1).max(10_080).optional(),
});
