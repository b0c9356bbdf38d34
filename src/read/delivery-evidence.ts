import type { Caller } from '../auth/caller.ts';
import type { Database } from '../db/client.ts';
import { EVIDENCE_SOURCES, type EvidenceEntry } from './evidence-sources.ts';
import { readableOrder } from './order-parties.ts';

/** The order's evidence, oldest first: every source's entries merged (stable within an instant, by source). */
export async function evidenceOf(database: Pick<Database, 'rows'>, orderId: number): Promise<EvidenceEntry[]> {
  const lists = await Promise.all(EVIDENCE_SOURCES.map((source) => source(database, orderId)));
  return lists
    .flatMap((entries, source) => entries.map((entry, i) => ({ entry, source, i })))
    .sort((a, b) => a.entry.at.localeCompare(b.entry.at) || a.source - b.source || a.i - b.i)
    .map((x) => x.entry);
}

/** GET /v9/orders/:id/delivery_evidence: both parties; anyone else 404. */
export async function readDeliveryEvidence(database: Pick<Database, 'db' | 'rows'>, orderId: number, caller: Pick<Caller, 'brokerageId'>) {
  await readableOrder(database.db, orderId, caller);
  return { order_id: orderId, timeline: await evidenceOf(database, orderId) };
}
