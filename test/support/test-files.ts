import { PDFDocument } from 'pdf-lib';
import { PNG } from 'pngjs';
import jpeg from 'jpeg-js';
import { once } from 'node:events';
import { crc32, createDeflate, deflateSync } from 'node:zlib';

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

/** `total` zero bytes deflated as a stream (never held whole): the core of a decompression bomb. */
export async function deflateZeros(total: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  const ended = once(deflate, 'end');
  const chunk = Buffer.alloc(1024 * 1024);
  for (let left = total; left > 0; left -= chunk.length) {
    if (!deflate.write(left >= chunk.length ? chunk : chunk.subarray(0, left))) await once(deflate, 'drain');
  }
  deflate.end();
  await ended;
  return Buffer.concat(out);
}

/**
 * A one-page PDF whose object stream is filtered `[/FlateDecode /FlateDecode]` and inflates to
 * `inflated` bytes (512 MiB fits in about 1.5 KB). Offsets and the cross-reference table are
 * right, so only its stream gives it away.
 */
export async function makeBombPdf(inflated = 512 * 1024 * 1024): Promise<Buffer> {
  const stream = deflateSync(await deflateZeros(inflated), { level: 9 });
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n', 'latin1')];
  const offsets: number[] = [];
  const size = () => parts.reduce((n, p) => n + p.length, 0);
  const object = (n: number, body: string | Buffer[]) => {
    offsets[n] = size();
    if (typeof body === 'string') parts.push(Buffer.from(`${n} 0 obj\n${body}\nendobj\n`, 'latin1'));
    else parts.push(Buffer.from(`${n} 0 obj\n`, 'latin1'), ...body, Buffer.from('\nendobj\n', 'latin1'));
  };
  object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  object(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  object(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>');
  object(4, [
    Buffer.from(`<< /Type /ObjStm /N 1 /First 4 /Filter [/FlateDecode /FlateDecode] /Length ${stream.length} >>\nstream\n`, 'latin1'),
    stream,
    Buffer.from('\nendstream', 'latin1'),
  ]);
  const xref = size();
  const rows = offsets.slice(1).map((o) => `${String(o).padStart(10, '0')} 00000 n \n`);
  parts.push(
    Buffer.from(
      `xref\n0 5\n0000000000 65535 f \n${rows.join('')}trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}

/** One PNG chunk: length, type, data, CRC. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A PNG of `width`×`height` at `depth` bits a channel, RGBA, every row filter 0 and every pixel
 * zero: 4000×4000 at 16 bits is 128 MiB of pixels in about 124 KB of file.
 */
export async function makeLargePng(width: number, height: number, depth: 8 | 16 = 16): Promise<Buffer> {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = depth;
  ihdr[9] = 6; // RGBA
  const data = await deflateZeros(height * (1 + (width * 4 * depth) / 8));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, pngChunk('IHDR', ihdr), pngChunk('IDAT', data), pngChunk('IEND', Buffer.alloc(0))]);
}
