import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStorableText, STORABLE_TEXT_PATTERN } from '@fulfil/contract';

// The body check (isStorableText) and the pattern the document gives every request string must
// agree, read as JSON Schema reads a pattern (Unicode semantics).
describe('STORABLE_TEXT_PATTERN', () => {
  const pattern = new RegExp(STORABLE_TEXT_PATTERN, 'u');

  it('refuses exactly what the body check refuses', () => {
    for (const s of ['', 'plain', 'emoji \u{1F3AB}', 'a\u0000b', '\uD800', 'x\uDC00', '\uDC00\uD800']) {
      expect(pattern.test(s), JSON.stringify(s)).toBe(isStorableText(s));
    }
    fc.assert(
      fc.property(
        fc
          .array(fc.oneof(fc.constantFrom('\u0000', '\uD800', '\uDC00', 'a'), fc.string({ unit: 'binary', maxLength: 3 })))
          .map((parts) => parts.join('')),
        (s) => {
          expect(pattern.test(s)).toBe(isStorableText(s));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
