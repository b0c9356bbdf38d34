import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../chaos/cluster.ts';
import { chaosFixture, checkOutcome, FIRST_ORDER, newTally, runFlows } from '../../chaos/flows.ts';
import { isProcessAlive } from '../../src/process-alive.ts';

// An API and two worker processes (`fulfil start --role …`) on a private Postgres that is
// stopped and started under load. Without the driver's patch (patches/postgres+3.4.9.patch) a
// worker died here on "Cannot read properties of null (reading 'write')" at the first or second restart.

const FLOWS = 150;

/** Commands not finished, with what Postgres knows of them (for a failure's message). */
async function unfinished(c: Cluster) {
  return c.db.sql!`select id, name, status, attempts, payload from commands where status in ('queued', 'running') order by created_at`;
}

describe('Postgres restarts under load', () => {
  let c: Cluster;
  beforeAll(async () => {
    // A job that failed while Postgres was away retries with exponential backoff (JOB_BACKOFF_MS
    // doubling, uncapped): on a loaded machine, where restarts take longer, a few commands can
    // wait well over a minute for their next attempt. The deadline below leaves room for that;
    // what this test guards is that they all finish, and that no process dies.
    c = await startCluster({ workers: 2, env: { JOB_BACKOFF_MS: '100' } });
    await c.seed(chaosFixture(FLOWS));
  }, 120_000);
  afterAll(async () => {
    await c?.stop();
  }, 120_000);

  it('every process survives, every flow finishes, nothing is lost, duplicated or stuck', async () => {
    const pids = [c.api.pid, ...c.workers.map((w) => w.pid)];
    const tally = newTally();
    const flows = runFlows(c.apiUrl, FIRST_ORDER, FLOWS, 12, tally, Date.now() + 280_000);
    for (const mode of ['fast', 'immediate', 'fast'] as const) {
      await new Promise((r) => setTimeout(r, 1200));
      c.pg.stop(mode);
      await new Promise((r) => setTimeout(r, 2000));
      c.pg.start();
    }
    const { failed } = await flows;
    const outcome = await checkOutcome(c.db, FIRST_ORDER, FLOWS);
    // One object, so that a failure shows every figure at once.
    expect({
      crashes: c.crashes(),
      alive: pids.map(isProcessAlive),
      failed,
      outcome,
      other: tally.other,
      unfinished: await unfinished(c),
    }).toEqual({
      crashes: [],
      alive: pids.map(() => true),
      failed: 0,
      outcome: { lost: 0, duplicated: 0, stuck: 0 },
      // only 200, 202 and the contract's 503 while Postgres was away
      other: {},
      unfinished: [],
    });
  }, 330_000);
});
