/**
 * The `mode` label of the gauges read from Postgres (DECISIONS D-201): test orders and their
 * issues, shipments and endpoints count under mode="test", so the alert rules, which select
 * mode="live", never fire on a sandbox's data, and a dashboard can still show it apart.
 */
export const METRIC_MODES = ['live', 'test'] as const;
export type MetricMode = (typeof METRIC_MODES)[number];
export type ModeCounts = Record<MetricMode, number>;

export const modeOf = (livemode: boolean): MetricMode => (livemode ? 'live' : 'test');

/** Rows counted per orders.livemode (or brokerages.livemode), as one count per mode; 0 for a mode with none. */
export function modeCounts(rows: ReadonlyArray<{ livemode: boolean; n: number }>): ModeCounts {
  const counts: ModeCounts = { live: 0, test: 0 };
  for (const r of rows) counts[modeOf(r.livemode)] += Number(r.n);
  return counts;
}
