import { PDFDocument } from 'pdf-lib';
import { PNG } from 'pngjs';
import jpeg from 'jpeg-js';

/** A real PDF of `pages` pages, each saying which ticket it is; `padTo` grows it with an unused stream (for size tests). */
export async function makePdf(pages: number, label = 'ticket', padTo = 0): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage([300, 200]).drawText(`${label} ${i + 1}`, { x: 20, y: 100, size: 18 });
  if (padTo > 0) {
    // Random bytes (incompressible) in a stream no page uses: a valid PDF of about padTo bytes.
    const filler = Buffer.alloc(padTo);
    for (let i = 0; i < padTo; i += 4) filler.writeUInt32LE((Math.random() * 0xffffffff) >>> 0, Math.min(i, padTo - 4));
    doc.context.register(doc.context.stream(filler));
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** The same PDF cut short: what a failed transfer leaves. */
export function truncate(pdf: Buffer, keep = 0.6): Buffer {
  return pdf.subarray(0, Math.floor(pdf.length * keep));
}

/** A PDF whose trailer names an encryption dictionary (as a password-protected file's does). */
export function encrypt(pdf: Buffer): Buffer {
  const text = pdf.toString('latin1');
  const marked = text.replace('trailer\n<<', 'trailer\n<<\n/Encrypt << /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >>');
  if (marked === text) throw new Error('encrypt: no trailer found');
  return Buffer.from(marked, 'latin1');
}

export function makePng(width = 40, height = 30): Buffer {
  const png = new PNG({ width, height });
  png.data.fill(200);
  return PNG.sync.write(png);
}

export function makeJpeg(width = 40, height = 30): Buffer {
  const data = Buffer.alloc(width * height * 4, 120);
  return Buffer.from(jpeg.encode({ data, width, height }, 80).data);
}

export const b64 = (b: Buffer) => b.toString('base64');
