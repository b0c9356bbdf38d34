import { Gauge } from 'prom-client';
import { and, inArray, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { shipments } from '../db/schema.ts';
import { metricsRegistry } from './metrics-registry.ts';

/** The mailed states that need someone: the carrier could not deliver, or sent the envelope back. */
const TROUBLED = ['exception', 'returned'] as const;

export const mailedTroubleGauge = new Gauge({
  name: 'fulfil_mailed_shipments',
  help: 'Live mailed shipments in exception or returned (the carrier could not deliver), by state, from Postgres (read at scrape).',
  labelNames: ['state'] as const,
  registers: [metricsRegistry],
});

/** Counts the live shipments in each troubled state and sets the gauge (0 for a state with none). */
export async function readMailedTrouble(ex: Executor): Promise<void> {
  const rows = await ex
    .select({ state: shipments.state, n: sql<number>`count(*)::int` })
    .from(shipments)
    .where(and(isNull(shipments.replacedBy), inArray(shipments.state, [...TROUBLED])))
    .groupBy(shipments.state);
  for (const state of TROUBLED) mailedTroubleGauge.set({ state }, Number(rows.find((r) => r.state === state)?.n ?? 0));
}
