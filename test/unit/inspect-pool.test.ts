import { afterAll, describe, expect, it } from 'vitest';
import { FileRefused } from '../../src/files/file-refused.ts';
import { InspectPool, ParseQueueFull } from '../../src/files/inspect-pool.ts';
import { makeLargePng, makePdf, makePng } from '../support/test-files.ts';

// Files are parsed in worker threads: the same answers as in process, refusals as refusals, and a
// parse past its deadline refused with its thread replaced.

describe('inspect pool', () => {
  const pool = new InspectPool(2);
  afterAll(() => pool.close());

  it('answers the facts of PDFs and images from its threads, several at once', async () => {
    const [pdf, png] = await Promise.all([makePdf(3), Promise.resolve(makePng(20, 10))]);
    const answers = await Promise.all([pool.inspect('pdf', pdf), pool.inspect('proof', png), pool.inspect('pdf', pdf)]);
    expect(answers.map((f) => [f.mediaType, f.pages, f.width])).toEqual([
      ['application/pdf', 3, null],
      ['image/png', null, 20],
      ['application/pdf', 3, null],
    ]);
    await expect(pool.inspect('pdf', makePng())).rejects.toMatchObject({ reason: 'not_pdf' });
  });

  it('refuses a file whose parse outlasts the deadline, and goes on with a new thread', async () => {
    const slow = new InspectPool(1, { deadlineMs: 1 });
    try {
      const refused = await slow.inspect('pdf', await makePdf(1, 'big', 4 * 1024 * 1024)).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(FileRefused);
      expect(refused).toMatchObject({ reason: 'too_slow' });
    } finally {
      await slow.close();
    }
    expect((await pool.inspect('pdf', await makePdf(1))).pages).toBe(1);
  });
});

describe('inspect pool queue', () => {
  it('a file that waits longer than the queue deadline for a thread is refused 503 with Retry-After, and the pool goes on', async () => {
    const one = new InspectPool(1, { queueMs: 50 });
    try {
      const busy = one.inspect('proof', await makeLargePng(4000, 4000, 8));
      const waited = await one.inspect('proof', makePng()).catch((err: unknown) => err);
      expect(waited).toBeInstanceOf(ParseQueueFull);
      expect(waited).toMatchObject({ status: 503, headers: { 'retry-after': '2' } });
      expect((await busy).width).toBe(4000);
      expect((await one.inspect('proof', makePng())).mediaType).toBe('image/png');
    } finally {
      await one.close();
    }
  });
});
