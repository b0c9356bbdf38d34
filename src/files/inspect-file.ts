import { PDFDocument } from 'pdf-lib';
import { FileRefused, type FileFacts } from './file-refused.ts';
import { inspectImage } from './inspect-image.ts';
import { DecodeBudgetSpent, withDecodeBudget } from './pdf-decode-budget.ts';

/**
 * What checking a PDF may inflate, in all: 16 times the file, at least 2 MiB and at most 32 MiB
 * (DECISIONS D-103). Only object and cross-reference streams are decoded to check a file, and they
 * hold dictionaries and offsets, which compress a few times in real documents, while a bomb
 * compresses a thousand times; the ceiling keeps one parse (with the decoder's buffer doubling)
 * under 64 MiB.
 */
export function pdfDecodeBudget(fileBytes: number): number {
  return Math.min(32 * MIB, Math.max(2 * MIB, 16 * fileBytes));
}

const MIB = 1024 * 1024;
const PDF_HEADER = Buffer.from('%PDF-');

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
    doc = await withDecodeBudget(pdfDecodeBudget(buf.length), () =>
      PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: true, ignoreEncryption: true }),
    );
  } catch (err) {
    if (err instanceof DecodeBudgetSpent)
      throw new FileRefused('decoded_too_large', `is a PDF whose ${err.message}; refused as a decompression bomb`);
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

/** A proof of transfer: a PDF, or a PNG or JPEG image. */
export async function inspectProof(bytes: Uint8Array): Promise<FileFacts> {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024));
  return head.indexOf(PDF_HEADER) >= 0 ? inspectPdf(bytes) : inspectImage(bytes);
}
