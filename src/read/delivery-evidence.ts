import { withMode } from './answer-mode.ts';
import type { Caller } from '../auth/caller.ts';
import type { Database } from '../db/client.ts';
import { EVIDENCE_SOURCES, type EvidenceEntry } from './evidence-sources.ts';
import { readableOrder } from './order-parties.ts';
import { EVIDENCE_DEFAULT_ITEMS, type DeliveryEvidenceQuery } from './delivery-evidence-query.ts';

/** The order's evidence, oldest first: every source's entries merged (stable within an instant, by source). */
export async function evidenceOf(database: Pick<Database, 'rows'>, orderId: number): Promise<EvidenceEntry[]> {
  const lists = await Promise.all(EVIDENCE_SOURCES.map((source) => source(database, orderId)));
  return lists
    .flatMap((entries, source) => entries.map((entry, i) => ({ entry, source, i })))
    .sort((a, b) => a.entry.at.localeCompare(b.entry.at) || a.source - b.source || a.i - b.i)
    .map((x) => x.entry);
}

/** GET /v9/orders/:id/delivery_evidence: both parties, a page at a time; anyone else 404. */
export async function readDeliveryEvidence(
  database: Pick<Database, 'db' | 'rows'>,
  orderId: number,
  caller: Pick<Caller, 'brokerageId'>,
  query: DeliveryEvidenceQuery = {},
) {
  const order = await readableOrder(database.db, orderId, caller);
  const { entries, next } = evidencePage(await evidenceOf(database, orderId), {
    items: query['page[items]'] ?? EVIDENCE_DEFAULT_ITEMS,
    cursor: query['page[cursor]'],
  });
  return withMode({ order_id: orderId, timeline: entries, next_cursor: next }, order.facts);
}

/**
 * One page of a timeline, oldest first. The cursor is the last entry's instant (milliseconds
 * since the epoch) and how many entries of that very instant were already given (D-178): an entry
 * stored later with an earlier time (a carrier's late scan) is not shown to a reader already past
 * it, as in the tracking events' pages, and none is given twice.
 */
export function evidencePage(
  timeline: readonly EvidenceEntry[],
  page: { items: number; cursor: string | undefined },
): { entries: EvidenceEntry[]; next: string | null } {
  let start = 0;
  if (page.cursor) {
    const [ms, given] = page.cursor.split('.').map(Number) as [number, number];
    let seen = 0;
    while (start < timeline.length) {
      const at = Date.parse(timeline[start]!.at);
      if (at > ms || (at === ms && seen >= given)) break;
      if (at === ms) seen++;
      start++;
    }
  }
  const entries = timeline.slice(start, start + page.items);
  const last = entries.at(-1);
  if (!last || start + page.items >= timeline.length) return { entries, next: null };
  const lastMs = Date.parse(last.at);
  // Entries of the last instant given so far: on this page and, when the page began inside that instant, before it.
  let sameInstant = 0;
  for (let i = start + entries.length - 1; i >= 0 && Date.parse(timeline[i]!.at) === lastMs; i--) sameInstant++;
  return { entries, next: `${lastMs}.${sameInstant}` };
}
