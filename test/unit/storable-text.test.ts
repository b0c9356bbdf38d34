import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSafeText, ONE_LINE_TEXT_PATTERN, TEXT_PATTERN, unsafeCharacterOf } from '@fulfil/contract';

// The body check (isSafeText) and the pattern the document gives every request string must
// agree, read as JSON Schema reads a pattern (Unicode semantics); so must one line's.
describe('TEXT_PATTERN and ONE_LINE_TEXT_PATTERN', () => {
  const text = new RegExp(TEXT_PATTERN, 'u');
  const oneLine = new RegExp(ONE_LINE_TEXT_PATTERN, 'u');
  const isOneLine = (s: string) => isSafeText(s) && unsafeCharacterOf(s, 'one') === undefined;
  const ODD = ['\u0000', '\uD800', '\uDC00', '\r', '\n', '\r\n', '\t', '\u0007', '\u001B[31m', '\u0085', '\u202E', '\u2066', '\u200F', 'a'];

  it('refuse exactly what the checks refuse', () => {
    for (const s of [
      '',
      'plain',
      'emoji \u{1F3AB}',
      'a\u0000b',
      '\uD800',
      'x\uDC00',
      '\uDC00\uD800',
      'two\r\nlines',
      'cr\ralone',
      'bell\u0007',
    ]) {
      expect(text.test(s), JSON.stringify(s)).toBe(isSafeText(s));
      expect(oneLine.test(s), JSON.stringify(s)).toBe(isOneLine(s));
    }
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...ODD), fc.string({ unit: 'binary', maxLength: 3 }))).map((parts) => parts.join('')),
        (s) => {
          expect(text.test(s)).toBe(isSafeText(s));
          expect(oneLine.test(s)).toBe(isOneLine(s));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('keep line breaks in many lines, refuse them in one, and refuse controls and bidi characters in both', () => {
    expect(isSafeText('a\nb\r\nc\td')).toBe(true);
    expect(unsafeCharacterOf('a\nb', 'one')).toBe('\n');
    expect(unsafeCharacterOf('a\rb')).toBe('\r');
    expect(unsafeCharacterOf('\u001B[2J')).toBe('\u001B');
    expect(unsafeCharacterOf('abc\u202Edef')).toBe('\u202E');
  });
});
