import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidParams } from '@fulfil/contract';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { FeedCursors } from '../../src/read/feed-cursor.ts';

const cursors = FeedCursors.from(SecretBox.fromKey(randomBytes(32)));

function refusal(fn: () => unknown): InvalidParams {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidParams);
    return err as InvalidParams;
  }
  throw new Error('expected the cursor to be refused');
}

const brokerage = fc.integer({ min: 1, max: 2 ** 31 });
const position = fc.maxSafeNat();

describe('feed cursors', () => {
  it('open gives back the position a cursor was issued for, to that brokerage only', () => {
    fc.assert(
      fc.property(brokerage, brokerage, position, (b, other, p) => {
        const cursor = cursors.issue(b, p);
        expect(cursor).toMatch(/^[A-Za-z0-9_-]{34}$/);
        expect(cursors.open(b, cursor)).toBe(p);
        expect(cursors.issue(b, p)).toBe(cursor);
        if (other !== b) expect(refusal(() => cursors.open(other, cursor)).extra).toEqual({ field: 'after' });
      }),
    );
  });

  it('cursors of neighbouring positions or brokerages share nothing a reader could count with', () => {
    const a = Buffer.from(cursors.issue(1, 1_000_000), 'base64url');
    for (const [b, p] of [
      [1, 1_000_001],
      [1, 1_000_100],
      [2, 1_000_000],
    ] as const) {
      const c = Buffer.from(cursors.issue(b, p), 'base64url');
      // Past the version byte, as between unrelated random strings: about half the bits differ, hardly a byte is equal.
      let differing = 0;
      let equal = 0;
      for (let i = 1; i < a.length; i++) {
        if (a[i] === c[i]) equal++;
        for (let x = a[i]! ^ c[i]!; x; x >>= 1) differing += x & 1;
      }
      expect(differing).toBeGreaterThan(60);
      expect(differing).toBeLessThan(132);
      expect(equal).toBeLessThan(4);
    }
  });

  it('any altered byte, another key, another length or the earlier text form is refused', () => {
    const cursor = cursors.issue(7, 123_456);
    const body = Buffer.from(cursor, 'base64url');
    for (let i = 0; i < body.length; i++)
      for (const bit of [0x01, 0x80]) {
        const altered = Buffer.from(body);
        altered[i]! ^= bit;
        refusal(() => cursors.open(7, altered.toString('base64url')));
      }
    refusal(() => FeedCursors.from(SecretBox.fromKey(randomBytes(32))).open(7, cursor));
    refusal(() => cursors.open(7, cursor.slice(0, -1)));
    refusal(() => cursors.open(7, `${cursor}A`));
    // A non-canonical spelling of the same bytes (the last character's unused bits set).
    const last = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const spelled = cursor.slice(0, -1) + last[last.indexOf(cursor.at(-1)!) + 1]!;
    expect(Buffer.from(spelled, 'base64url')).toEqual(body);
    refusal(() => cursors.open(7, spelled));
    const earlier = refusal(() => cursors.open(7, Buffer.from('fe1:42').toString('base64url')));
    expect(earlier.message).toMatch(/earlier form.*without after/);
  });
});
