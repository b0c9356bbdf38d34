import { Gauge } from 'prom-client';
import { sql } from 'drizzle-orm';
import { query, type Executor } from '../db/client.ts';
import { METRIC_MODES, modeOf } from './metric-modes.ts';
import { metricsRegistry } from './metrics-registry.ts';

/** The mailed states that need someone: the carrier could not deliver, or sent the envelope back. */
const TROUBLED = ['exception', 'returned'] as const;

export const mailedTroubleGauge = new Gauge({
  name: 'fulfil_mailed_shipments',
  help: 'Live mailed shipments in exception or returned (the carrier could not deliver), by state and mode (live, test), from Postgres (read at scrape).',
  labelNames: ['state', 'mode'] as const,
  registers: [metricsRegistry],
});

/** Counts the live shipments in each troubled state, per mode, and sets the gauge (0 for a state with none). */
export async function readMailedTrouble(ex: Executor): Promise<void> {
  const rows = await query<{ state: string; livemode: boolean; n: number }>(
    ex,
    sql`select s.state, o.livemode, count(*)::int as n from shipments s join orders o on o.id = s.order_id
      where s.replaced_by is null and s.state in ('exception', 'returned') group by s.state, o.livemode`,
  );
  for (const state of TROUBLED) {
    for (const mode of METRIC_MODES) {
      const n = rows.filter((r) => r.state === state && modeOf(r.livemode) === mode).reduce((sum, r) => sum + Number(r.n), 0);
      mailedTroubleGauge.set({ state, mode }, n);
    }
  }
}
