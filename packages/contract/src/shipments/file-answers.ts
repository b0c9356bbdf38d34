import { z } from 'zod';
import { id, instant, livemode, mobileTransferShipment } from './shipment-answers.ts';

// The answers about a shipment's files: facts and paths, never bytes.

const sha256 = z.string().describe('sha256 of the file, lowercase hex');
const uploader = z.strictObject({ brokerage_id: id, user_id: id.nullable() });

export const eticket = z.strictObject({
  id: id.describe('the e-ticket id: GET /v9/shipments/<shipment>/etickets/<id> downloads it'),
  seat: z.string().nullable(),
  pages: z.number().int().positive(),
  bytes: z.number().int().positive(),
  sha256,
  barcode: z.string().nullable(),
  url: z.string().describe('/v9/shipments/<shipment>/etickets/<id>'),
});

/** The answer of POST /v9/shipments/:id/etickets: the shipment with its e-tickets. */
export const shipmentWithEtickets = mobileTransferShipment.extend({ etickets: z.array(eticket), livemode });

export const eticketUpload = z.strictObject({
  id: id.describe('the upload (file set) id'),
  uploaded_at: instant,
  uploaded_by: uploader,
  replaced_at: instant.nullable().describe('when a later upload replaced it; its files are listed, no longer served'),
  etickets: z.array(eticket),
});

/** GET /v9/shipments/:id/etickets. */
export const eticketList = z.strictObject({
  shipment_id: id,
  etickets: z.array(eticket).describe('the current e-tickets; empty until the seller uploads'),
  uploads: z.array(eticketUpload).describe('every upload, oldest first'),
  livemode,
});

/** POST /v9/shipments/:id/etickets/link. */
export const eticketLink = z.strictObject({
  url: z.string().describe('the one-time download URL: works once, without credentials, until expires_at'),
  eticket_id: id,
  expires_at: instant,
  livemode,
});

export const proofFile = z.strictObject({
  id,
  media_type: z.enum(['application/pdf', 'image/png', 'image/jpeg']),
  pages: z.number().int().positive().nullable().describe('a PDF: its pages'),
  width: z.number().int().positive().nullable().describe('an image: its width in pixels'),
  height: z.number().int().positive().nullable().describe('an image: its height in pixels'),
  bytes: z.number().int().positive(),
  sha256,
  note: z.string().nullable(),
  url: z.string().describe('/v9/shipments/<shipment>/transfer_verifications/<id>'),
});

/** A proof as stored (in the list; the POST answers it with its mode). */
export const transferVerification = z.strictObject({
  id: id.describe('the proof (file set) id'),
  verified_at: instant,
  verified_by: uploader,
  files: z.array(proofFile),
});

/** The answer of POST /v9/shipments/:id/transfer_verifications: the proof with its mode (not repeated in the list). */
export const transferVerificationAnswer = transferVerification.extend({ livemode });

/** GET /v9/shipments/:id/transfer_verifications. */
export const transferVerificationList = z.strictObject({
  shipment_id: id,
  transfer_verifications: z.array(transferVerification),
  livemode,
});
