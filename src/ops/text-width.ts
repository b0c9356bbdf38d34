/**
 * How wide a line of text is drawn, in px, before any browser measures it: the layout needs
 * sizes for states and labels up front. The advance widths are DejaVu Sans's (what Linux
 * resolves system-ui to, and wider than the usual sans-serif of other systems, which then only
 * leave more room around the text), in hundredths of an em, for the characters from space to ~.
 */
const ASCII = (
  '32 40 46 84 64 95 78 27 39 39 50 84 32 36 32 34 64 64 64 64 64 64 64 64 64 64 34 34 84 84 84 53 ' +
  '100 68 69 70 77 63 58 77 75 29 29 66 56 86 75 79 60 79 69 63 61 73 68 99 69 61 69 39 34 39 84 50 ' +
  '50 61 63 55 63 62 35 63 63 28 28 58 28 97 63 61 63 63 41 52 39 63 59 82 59 59 52 64 34 64 84'
)
  .split(' ')
  .map(Number);

/** Anything else (● marks the current state) as wide as the widest of these. */
const OTHER = 100;

export function textWidth(text: string, fontPx: number): number {
  let hundredths = 0;
  for (const c of text) hundredths += ASCII[c.charCodeAt(0) - 32] ?? OTHER;
  return Math.ceil((hundredths * fontPx) / 100);
}
