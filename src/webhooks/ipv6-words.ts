import { isIP } from 'node:net';

/**
 * The eight 16-bit groups of an IPv6 address in any textual form ('::' anywhere, a trailing
 * dotted IPv4 part, any case), or undefined for anything else, a zone index ('%eth0') included.
 */
export function ipv6Words(address: string): number[] | undefined {
  if (isIP(address) !== 6 || address.includes('%')) return undefined;
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const words = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : undefined;
}

/** Whether the address's leading `bits` equal the prefix's (both as ipv6Words). */
export function inPrefix(words: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if ((words[i]! & mask) !== (prefix[i]! & mask)) return false;
  }
  return true;
}

/** The IPv4 address held by two 16-bit groups, dotted. */
export function ipv4Of(hi: number, lo: number): string {
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}
