import { PDFDocument } from 'pdf-lib';
import { PNG } from 'pngjs';
import jpeg from 'jpeg-js';
import type { FileMediaType } from '../db/schema/files.ts';

/** Why a file was refused: the reason a refusal is counted by (fulfil_file_uploads_refused_total). */
export type RefusalReason =
  | 'bad_base64'
  | 'too_large'
  | 'not_pdf'
  | 'truncated'
  | 'encrypted'
  | 'not_image'
  | 'too_many_pixels'
  | 'page_count'
  | 'too_many_files'
  | 'too_slow';

export class FileRefused extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}

/** What a file was checked to be; kept beside its bytes (stored_files). */
export interface FileFacts {
  mediaType: FileMediaType;
  bytes: number;
  pages: number | null;
  width: number | null;
  height: number | null;
}

/**
 * An image is decoded whole to check it, so its pixels are bounded before decoding: 16
 * megapixels (64 MiB of RGBA) is four times a phone's screenshot.
 */
export const MAX_IMAGE_PIXELS = 16_000_000;

const PDF_HEADER = Buffer.from('%PDF-');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Checks that the bytes are a whole, unencrypted PDF and counts its pages. The PDF library parses
 * every object and the page tree; before it, the file's end is checked, because a parser that
 * reads objects in order opens a file cut in half as a shorter document: a PDF ends with
 * `startxref`, the offset of its last cross-reference section (which must be there), and `%%EOF`.
 */
export async function inspectPdf(bytes: Uint8Array): Promise<FileFacts> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.subarray(0, 1024).indexOf(PDF_HEADER) < 0) throw new FileRefused('not_pdf', 'is not a PDF (no %PDF- header)');
  checkPdfEnd(buf);
  let doc: PDFDocument;
  try {
    // Loaded as it is, then asked: pdf-lib's own "encrypted" error loses its class in its ES5 build.
    doc = await PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: true, ignoreEncryption: true });
  } catch (err) {
    throw new FileRefused('not_pdf', `is not a readable PDF (${String((err as Error).message).slice(0, 120)})`);
  }
  if (doc.isEncrypted) throw new FileRefused('encrypted', 'is an encrypted PDF; upload it without a password or restrictions');
  let pages: number;
  try {
    pages = doc.getPageCount();
  } catch {
    throw new FileRefused('not_pdf', 'is not a readable PDF (its page tree is broken)');
  }
  if (pages < 1) throw new FileRefused('not_pdf', 'is a PDF with no pages');
  return { mediaType: 'application/pdf', bytes: buf.length, pages, width: null, height: null };
}

function checkPdfEnd(buf: Buffer): void {
  const tail = buf.subarray(Math.max(0, buf.length - 2048)).toString('latin1');
  const truncated = new FileRefused('truncated', 'is a truncated PDF (its end, startxref … %%EOF, is missing or wrong)');
  if (!/%%EOF\s*$/.test(tail)) throw truncated;
  const found = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
  if (!found) throw truncated;
  const offset = Number(found[1]);
  if (!Number.isSafeInteger(offset) || offset >= buf.length) throw truncated;
  const at = buf.subarray(offset, offset + 64).toString('latin1');
  // A cross-reference table, or (PDF 1.5+) a cross-reference stream: an indirect object.
  if (!/^\s*(xref\b|\d+\s+\d+\s+obj\b)/.test(at)) throw truncated;
}

/** Checks that the bytes are a PNG or a JPEG by decoding them whole (after bounding the pixels). */
export function inspectImage(bytes: Uint8Array): FileFacts {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.subarray(0, 8).equals(PNG_SIGNATURE)) return inspectPng(buf);
  if (buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return inspectJpeg(buf);
  throw new FileRefused('not_image', 'is neither a PNG nor a JPEG image, nor a PDF');
}

function inspectPng(buf: Buffer): FileFacts {
  // IHDR is the first chunk: length (4), "IHDR" (4), width (4), height (4).
  if (buf.length < 33 || buf.toString('latin1', 12, 16) !== 'IHDR') throw new FileRefused('not_image', 'is not a readable PNG (no IHDR)');
  boundPixels(buf.readUInt32BE(16), buf.readUInt32BE(20));
  let png: PNG;
  try {
    png = PNG.sync.read(buf, { checkCRC: true });
  } catch (err) {
    throw new FileRefused('not_image', `is not a readable PNG (${String((err as Error).message).slice(0, 120)})`);
  }
  return { mediaType: 'image/png', bytes: buf.length, pages: null, width: png.width, height: png.height };
}

function inspectJpeg(buf: Buffer): FileFacts {
  let image: { width: number; height: number };
  try {
    image = jpeg.decode(buf, { maxResolutionInMP: MAX_IMAGE_PIXELS / 1e6, maxMemoryUsageInMB: 256, formatAsRGBA: false });
  } catch (err) {
    const message = String((err as Error).message);
    if (/maxResolutionInMP|maxMemoryUsageInMB/.test(message)) boundPixels(Infinity, 1);
    throw new FileRefused('not_image', `is not a readable JPEG (${message.slice(0, 120)})`);
  }
  if (!image.width || !image.height) throw new FileRefused('not_image', 'is not a readable JPEG (no frame)');
  return { mediaType: 'image/jpeg', bytes: buf.length, pages: null, width: image.width, height: image.height };
}

function boundPixels(width: number, height: number): void {
  if (width * height > MAX_IMAGE_PIXELS) {
    throw new FileRefused('too_many_pixels', `is an image of more than ${MAX_IMAGE_PIXELS / 1e6} megapixels`);
  }
}

/** A proof of transfer: a PDF, or a PNG or JPEG image. */
export async function inspectProof(bytes: Uint8Array): Promise<FileFacts> {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024));
  return head.indexOf(PDF_HEADER) >= 0 ? inspectPdf(bytes) : inspectImage(bytes);
}
