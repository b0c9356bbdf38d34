import { crc32, createInflate } from 'node:zlib';
import { FileRefused, type FileFacts } from './file-refused.ts';

/**
 * Proof images are checked for their structure, never decoded to pixels: what a check needs is
 * that the file is a whole PNG or JPEG of bounded size, not its picture, and decoding a
 * 16-megapixel 16-bit PNG took seconds of CPU and hundreds of MiB. Dimensions and bit depth are
 * bounded from the header before any data is read (DECISIONS D-104).
 */
export const MAX_IMAGE_PIXELS = 16_000_000;
/** The bytes a PNG's image data may inflate to (its rows with their filter bytes): 16 MP of 8-bit RGBA. */
export const MAX_IMAGE_DATA_BYTES = 64 * 1024 * 1024;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG or a JPEG, told by its first bytes. */
export async function inspectImage(bytes: Uint8Array): Promise<FileFacts> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.subarray(0, 8).equals(PNG_SIGNATURE)) return inspectPng(buf);
  if (buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return inspectJpeg(buf);
  throw new FileRefused('not_image', 'is neither a PNG nor a JPEG image, nor a PDF');
}

function boundPixels(width: number, height: number): void {
  if (width * height > MAX_IMAGE_PIXELS) {
    throw new FileRefused('too_many_pixels', `is an image of more than ${MAX_IMAGE_PIXELS / 1e6} megapixels (${width}×${height})`);
  }
}

/** Channels of each PNG colour type, and the bit depths it allows (PNG spec §11.2.2). */
const PNG_COLOUR: Record<number, { channels: number; depths: number[] }> = {
  0: { channels: 1, depths: [1, 2, 4, 8, 16] },
  2: { channels: 3, depths: [8, 16] },
  3: { channels: 1, depths: [1, 2, 4, 8] },
  4: { channels: 2, depths: [8, 16] },
  6: { channels: 4, depths: [8, 16] },
};

/** Adam7's passes: where each starts and how it steps, in x and y. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** The rows of the inflated image data: each is one filter byte, then `bytes - 1` of pixels. */
function pngRows(width: number, height: number, bitsPerPixel: number, interlaced: boolean): { rows: number; bytes: number }[] {
  const row = (w: number) => 1 + Math.ceil((w * bitsPerPixel) / 8);
  if (!interlaced) return [{ rows: height, bytes: row(width) }];
  return ADAM7.map(([x0, y0, dx, dy]) => {
    const w = Math.ceil((width - x0) / dx);
    const h = Math.ceil((height - y0) / dy);
    return w > 0 && h > 0 ? { rows: h, bytes: row(w) } : { rows: 0, bytes: 0 };
  }).filter((p) => p.rows > 0);
}

async function inspectPng(buf: Buffer): Promise<FileFacts> {
  const bad = (why: string) => new FileRefused('not_image', `is not a readable PNG (${why})`);
  const idat: Buffer[] = [];
  let header: { width: number; height: number; depth: number; colour: number; interlaced: boolean } | undefined;
  let palette = false;
  let ended = false;
  let lastType = '';
  for (let at = 8; !ended;) {
    if (at + 12 > buf.length) throw bad('it ends before its IEND chunk');
    const length = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    if (length > buf.length - at - 12) throw bad(`its ${type} chunk runs past the end of the file`);
    const data = buf.subarray(at + 8, at + 8 + length);
    if (crc32(data, crc32(buf.subarray(at + 4, at + 8))) !== buf.readUInt32BE(at + 8 + length))
      throw bad(`its ${type} chunk fails its CRC`);
    if (!header && type !== 'IHDR') throw bad('no IHDR first');
    if (type === 'IHDR') {
      if (header || length !== 13) throw bad('a wrong IHDR');
      header = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), depth: data[8]!, colour: data[9]!, interlaced: data[12] === 1 };
      const kind = PNG_COLOUR[header.colour];
      if (!header.width || !header.height || !kind?.depths.includes(header.depth) || data[10] !== 0 || data[11] !== 0 || data[12]! > 1) {
        throw bad('an IHDR with values PNG does not allow');
      }
      boundPixels(header.width, header.height);
    } else if (type === 'PLTE') palette = true;
    else if (type === 'IDAT') {
      if (idat.length > 0 && lastType !== 'IDAT') throw bad('its IDAT chunks are not consecutive');
      idat.push(data);
    } else if (type === 'IEND') ended = true;
    lastType = type;
    at += 12 + length;
  }
  if (!header) throw bad('no IHDR');
  if (idat.length === 0) throw bad('no image data');
  if (header.colour === 3 && !palette) throw bad('a palette image without its PLTE chunk');
  const bitsPerPixel = PNG_COLOUR[header.colour]!.channels * header.depth;
  const rows = pngRows(header.width, header.height, bitsPerPixel, header.interlaced);
  const expected = rows.reduce((n, p) => n + p.rows * p.bytes, 0);
  if (expected > MAX_IMAGE_DATA_BYTES) {
    throw new FileRefused(
      'too_many_pixels',
      `is an image whose pixels take more than ${MAX_IMAGE_DATA_BYTES / 1024 / 1024} MiB (${header.width}×${header.height}, ${bitsPerPixel} bits a pixel); send it at 8 bits a channel or smaller`,
    );
  }
  await checkImageData(idat, rows, expected, bad);
  return { mediaType: 'image/png', bytes: buf.length, pages: null, width: header.width, height: header.height };
}

/**
 * Inflates the image data as a stream, keeping none of it: the total must be exactly the rows'
 * size and every row must start with a known filter (0–4). Memory stays one zlib window and one
 * output chunk whatever the image's size.
 */
function checkImageData(
  parts: Buffer[],
  rows: { rows: number; bytes: number }[],
  expected: number,
  bad: (why: string) => FileRefused,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const inflate = createInflate({ chunkSize: 64 * 1024 });
    let total = 0;
    let pass = 0;
    let rowInPass = 0;
    let nextRow = 0;
    const fail = (err: FileRefused) => {
      inflate.removeAllListeners('data');
      inflate.destroy();
      reject(err);
    };
    inflate.on('data', (chunk: Buffer) => {
      if (total + chunk.length > expected) return fail(bad('more image data than its size'));
      while (nextRow < total + chunk.length) {
        if (chunk[nextRow - total]! > 4) return fail(bad(`an unknown row filter at byte ${nextRow} of its image data`));
        nextRow += rows[pass]!.bytes;
        if (++rowInPass === rows[pass]!.rows) {
          pass++;
          rowInPass = 0;
          if (pass === rows.length) nextRow = Infinity;
        }
      }
      total += chunk.length;
    });
    inflate.on('error', (err) => reject(bad(`its image data does not inflate: ${err.message}`)));
    inflate.on('end', () =>
      total === expected ? resolve() : reject(bad(`its image data is ${total} bytes where its size needs ${expected}`)),
    );
    for (const part of parts) inflate.write(part);
    inflate.end();
  });
}

/** Markers that stand alone, without a length: SOI, EOI, TEM and the restart markers. */
const STANDALONE = new Set([0xd8, 0xd9, 0x01, 0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7]);

/**
 * A JPEG's segments walked from SOI to EOI: every segment within the file, a frame header (SOF)
 * with its dimensions bounded before the first scan, and each scan's entropy-coded data skipped to
 * the next marker. The pixels are never decoded.
 */
function inspectJpeg(buf: Buffer): FileFacts {
  const bad = (why: string) => new FileRefused('not_image', `is not a readable JPEG (${why})`);
  let frame: { width: number; height: number } | undefined;
  let scans = 0;
  let at = 2;
  for (;;) {
    if (at + 2 > buf.length) throw bad('it ends before its EOI marker');
    if (buf[at] !== 0xff) throw bad(`no marker at byte ${at}`);
    while (buf[at + 1] === 0xff && at + 2 < buf.length) at++; // fill bytes
    const marker = buf[at + 1]!;
    at += 2;
    if (marker === 0xd9) break;
    if (marker === 0xd8 || marker === 0x00) throw bad(`a misplaced marker at byte ${at - 2}`);
    if (STANDALONE.has(marker)) continue;
    if (at + 2 > buf.length) throw bad('it ends inside a segment');
    const length = buf.readUInt16BE(at);
    if (length < 2 || at + length > buf.length) throw bad(`a segment that runs past the end of the file at byte ${at}`);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) {
      if (length < 8) throw bad('a short frame header');
      const height = buf.readUInt16BE(at + 3);
      const width = buf.readUInt16BE(at + 5);
      const components = buf[at + 7]!;
      if (!width || !height || components < 1 || components > 4) throw bad('a frame header with values JPEG does not allow');
      boundPixels(width, height);
      frame = { width, height };
    }
    at += length;
    if (marker === 0xda) {
      if (!frame) throw bad('a scan before its frame header');
      scans++;
      // Entropy-coded data: 0xFF is followed by 0x00 (a stuffed byte) or a restart marker inside it.
      while (at + 1 < buf.length && !(buf[at] === 0xff && buf[at + 1] !== 0x00 && (buf[at + 1]! < 0xd0 || buf[at + 1]! > 0xd7))) at++;
    }
  }
  if (!frame || scans === 0) throw bad('no image in it');
  return { mediaType: 'image/jpeg', bytes: buf.length, pages: null, width: frame.width, height: frame.height };
}
