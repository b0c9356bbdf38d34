import { describe, expect, it } from 'vitest';
import { runChaos, SHORT, violations } from '../../chaos/suite.ts';

// The short version of `npm run chaos` (chaos/suite.ts): a private Postgres and Redis, an API and
// two worker processes; flows under faults, the auth matrix, a fuzz pass, slow clients and
// connection exhaustion.

describe('chaos, short run', () => {
  it('no flow lost, duplicated or stuck, no crash, no 5xx but 503, no data to tampered or foreign calls, slow clients cut off', async () => {
    const lines: string[] = [];
    const figures = await runChaos({ ...SHORT, log: (l) => lines.push(l) });
    // the figures are the point of a chaos run: print them with the test output
    console.log(lines.join('\n'));
    expect(violations(figures)).toEqual([]);
    expect(figures.totals.flows).toBe(SHORT.faults.length * SHORT.flowsPerFault);
    expect(figures.totals.s200).toBeGreaterThanOrEqual(figures.totals.flows * 3 - figures.totals.s202);
    expect(figures.fuzz.cases).toBeGreaterThanOrEqual(SHORT.fuzzCases);
    expect(figures.auth.cases).toBeGreaterThan(100);
    expect(figures.slow.closedInTime).toBe(SHORT.slowClients);
    expect(figures.exhaustion.victimStatuses).toEqual([200, 200]);
  }, 300_000);
});
