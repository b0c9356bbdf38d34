import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { FileRefused } from '../../src/files/file-refused.ts';
import { MAX_IMAGE_DATA_BYTES } from '../../src/files/inspect-image.ts';
import { inspectPdf, inspectProof, pdfDecodeBudget } from '../../src/files/inspect-file.ts';
import { makeBombPdf, makeJpeg, makeLargePng, makePdf, makePng, pngChunk } from '../support/test-files.ts';

// What a file may cost to check (issue 43): PDF streams inflate under a budget that stops a bomb
// where it is reached; images are checked by their structure, never decoded, with dimensions and
// bit depth bounded from their headers. Every bomb is built here, not committed.

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => err as FileRefused,
  );

describe('PDF decoding budget', () => {
  it('a [/FlateDecode /FlateDecode] object stream of 512 MiB stops at the budget: refused as a bomb', async () => {
    const bomb = await makeBombPdf();
    expect(bomb.length).toBeLessThan(2048);
    const err = await refusal(inspectPdf(bomb));
    expect(err).toBeInstanceOf(FileRefused);
    expect(err).toMatchObject({ reason: 'decoded_too_large' });
    expect(err!.message).toBe(
      `is a PDF whose compressed streams inflate to more than ${2 * 1024 * 1024} bytes; refused as a decompression bomb`,
    );
  });

  it('real documents with object and cross-reference streams are read within it', async () => {
    const doc = await PDFDocument.create();
    for (let i = 0; i < 200; i++) doc.addPage([300, 200]).drawText(`ticket ${i + 1}`, { x: 20, y: 100, size: 18 });
    const withStreams = Buffer.from(await doc.save({ useObjectStreams: true }));
    expect(withStreams.includes('/ObjStm')).toBe(true);
    expect((await inspectPdf(withStreams)).pages).toBe(200);
    expect((await inspectPdf(await makePdf(2, 'x', 10 * 1024 * 1024 - 4096))).pages).toBe(2);
  });

  it('the budget: 16 times the file, at least 2 MiB, at most 32 MiB', () => {
    expect(pdfDecodeBudget(1500)).toBe(2 * 1024 * 1024);
    expect(pdfDecodeBudget(1024 * 1024)).toBe(16 * 1024 * 1024);
    expect(pdfDecodeBudget(10 * 1024 * 1024)).toBe(32 * 1024 * 1024);
  });
});

describe('images checked by structure', () => {
  it('a 4000×4000 16-bit RGBA PNG (128 MiB of pixels in 124 KB) is refused from its header; at 8 bits it is taken', async () => {
    const wide = await makeLargePng(4000, 4000, 16);
    expect(wide.length).toBeLessThan(200 * 1024);
    const err = await refusal(inspectProof(wide));
    expect(err).toMatchObject({ reason: 'too_many_pixels' });
    expect(err!.message).toMatch(new RegExp(`more than ${MAX_IMAGE_DATA_BYTES / 1024 / 1024} MiB \\(4000×4000, 64 bits a pixel\\)`));
    expect(await inspectProof(await makeLargePng(4000, 4000, 8))).toMatchObject({ mediaType: 'image/png', width: 4000, height: 4000 });
    expect(await refusal(inspectProof(await makeLargePng(5000, 4000, 8)))).toMatchObject({ reason: 'too_many_pixels' });
  });

  it('refuses PNGs that are not whole: a bad CRC, a cut file, data short or long, an unknown row filter, no IEND', async () => {
    const good = makePng(40, 30);
    expect(await inspectProof(good)).toMatchObject({ mediaType: 'image/png', width: 40, height: 30 });
    const flipped = Buffer.from(good);
    flipped[40] = flipped[40]! ^ 0xff;
    expect((await refusal(inspectProof(flipped)))?.message).toMatch(/fails its CRC/);
    expect((await refusal(inspectProof(good.subarray(0, good.length - 20))))?.reason).toBe('not_image');
    expect((await refusal(inspectProof(good.subarray(0, good.length - 12))))?.message).toMatch(/ends before its IEND/);

    const { deflateSync } = await import('node:zlib');
    const ihdr = Buffer.from([0, 0, 0, 4, 0, 0, 0, 2, 8, 0, 0, 0, 0]); // 4×2 grey, 8 bits
    const png = (raw: Buffer) =>
      Buffer.concat([good.subarray(0, 8), pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
    expect(await inspectProof(png(Buffer.alloc(10)))).toMatchObject({ width: 4, height: 2 });
    expect((await refusal(inspectProof(png(Buffer.alloc(9)))))?.message).toMatch(/is 9 bytes where its size needs 10/);
    expect((await refusal(inspectProof(png(Buffer.alloc(11)))))?.message).toMatch(/more image data than its size/);
    expect((await refusal(inspectProof(png(Buffer.from([0, 1, 1, 1, 1, 9, 1, 1, 1, 1])))))?.message).toMatch(
      /unknown row filter at byte 5/,
    );
  });

  it('JPEGs: a whole one is taken; one cut short, or too large in its frame header, is refused without decoding', async () => {
    const jpeg = makeJpeg(64, 48);
    expect(await inspectProof(jpeg)).toMatchObject({ mediaType: 'image/jpeg', width: 64, height: 48 });
    expect((await refusal(inspectProof(jpeg.subarray(0, jpeg.length - 2))))?.message).toMatch(/is not a readable JPEG/);
    const huge = Buffer.from(jpeg);
    const sof = huge.indexOf(Buffer.from([0xff, 0xc0]));
    huge.writeUInt16BE(20000, sof + 5);
    huge.writeUInt16BE(20000, sof + 7);
    expect(await refusal(inspectProof(huge))).toMatchObject({ reason: 'too_many_pixels' });
    expect((await refusal(inspectProof(Buffer.from([0xff, 0xd8, 0xff, 0xd9]))))?.message).toMatch(/no image in it/);
  });
});
