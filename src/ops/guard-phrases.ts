/**
 * What each named guard of machines/ means, as the diagrams print it: an operator reads
 * "link fits the type", not `linkFitsType`. A guard missing here fails a unit test
 * (test/unit/machines-doc.test.ts), so a new guard cannot reach a diagram as a code name.
 */
export const GUARD_PHRASES: Readonly<Record<string, string>> = {
  linkFitsType: 'link fits the type',
  leavesPickup: 'to XMobile or XSeats',
  unfinished: 'not delivered or canceled',
  bySeller: 'by the seller',
  byBuyer: 'by the buyer',
  shipsTracked: 'mailed, with a tracking number',
  carried: 'in_transit or out_for_delivery scan',
  scanDelivered: 'delivered scan',
  scanException: 'exception scan',
  scanReturned: 'returned scan',
};

/** The words for a named guard, or for the unguarded last branch ("otherwise"); undefined when there are none. */
export function guardPhrase(name: string): string | undefined {
  if (name === 'otherwise') return name;
  return Object.hasOwn(GUARD_PHRASES, name) ? GUARD_PHRASES[name] : undefined;
}

/** The words for an inline guard that compares a context field with a constant: "type is TBD". */
export function comparisonPhrase(field: string, value: string): string {
  return `${field} is ${value}`;
}
