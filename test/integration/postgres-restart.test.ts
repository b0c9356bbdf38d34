import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../chaos/cluster.ts';
import { chaosFixture, checkOutcome, FIRST_ORDER, newTally, runFlows } from '../../chaos/flows.ts';
import { isProcessAlive } from '../../src/process-alive.ts';

// An API and two worker processes (`fulfil start --role …`) on a private Postgres that is
// stopped and started under load. Before the driver repair (scripts/patch-postgres.mjs) a worker
// died here on "Cannot read properties of null (reading 'write')" at the first or second restart.

const FLOWS = 150;

describe('Postgres restarts under load', () => {
  let c: Cluster;
  beforeAll(async () => {
    c = await startCluster({ workers: 2 });
    await c.seed(chaosFixture(FLOWS));
  }, 120_000);
  afterAll(async () => {
    await c?.stop();
  }, 120_000);

  it('every process survives, every flow finishes, nothing is lost, duplicated or stuck', async () => {
    const pids = [c.api.pid, ...c.workers.map((w) => w.pid)];
    const tally = newTally();
    const flows = runFlows(c.apiUrl, FIRST_ORDER, FLOWS, 12, tally, Date.now() + 150_000);
    for (const mode of ['fast', 'immediate', 'fast'] as const) {
      await new Promise((r) => setTimeout(r, 1200));
      c.pg.stop(mode);
      await new Promise((r) => setTimeout(r, 2000));
      c.pg.start();
    }
    const { failed } = await flows;
    expect(c.crashes()).toEqual([]);
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(true);
    expect(failed).toBe(0);
    expect(await checkOutcome(c.db, FIRST_ORDER, FLOWS)).toEqual({ lost: 0, duplicated: 0, stuck: 0 });
    // Only 200, 202 and the contract's 503 while Postgres was away.
    expect(tally.other).toEqual({});
  }, 200_000);
});
