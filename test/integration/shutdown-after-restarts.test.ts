import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../chaos/cluster.ts';
import { chaosFixture, FIRST_ORDER, newTally, runFlows } from '../../chaos/flows.ts';

/**
 * A worker (`fulfil start --role worker`) that lived through a Postgres restart and a Redis
 * restart under load stops on SIGTERM well inside its shutdown deadline, with no step running
 * into its own deadline, and everything it wrote is one JSON (pino) line each: no multi-line
 * stack traces of connection resets on stderr.
 */
describe('shutdown after Postgres and Redis restarts', () => {
  let c: Cluster;
  beforeAll(async () => {
    // A call stuck on a connection the restart broke is abandoned by the client-side deadline;
    // kept under the shutdown deadline (15 s) so shutdown does not wait on one (see RELIABILITY.md).
    c = await startCluster({
      workers: 1,
      env: { JOB_BACKOFF_MS: '100', DATABASE_STATEMENT_TIMEOUT_MS: '4000', DATABASE_CLIENT_DEADLINE_MS: '5000' },
    });
    await c.seed(chaosFixture(60));
  }, 120_000);
  afterAll(async () => {
    await c?.stop();
  }, 120_000);

  it('exits on SIGTERM within its deadline, logging only JSON lines', async () => {
    const tally = newTally();
    const flows = runFlows(c.apiUrl, FIRST_ORDER, 60, 6, tally, Date.now() + 150_000);
    await new Promise((r) => setTimeout(r, 1_000));
    c.pg.stop('fast');
    await new Promise((r) => setTimeout(r, 1_500));
    c.pg.start();
    await new Promise((r) => setTimeout(r, 1_000));
    await c.redis.kill();
    await new Promise((r) => setTimeout(r, 1_500));
    await c.redis.start();
    expect((await flows).failed).toBe(0);

    const worker = c.workers[0]!;
    const exited = new Promise<number | null>((r) => worker.child.once('exit', (code) => r(code)));
    const started = performance.now();
    worker.child.kill('SIGTERM');
    const code = await exited;
    const took = performance.now() - started;

    const lines = readFileSync(worker.logFile, 'utf8').split('\n').filter(Boolean);
    const notJson = lines.filter((l) => {
      try {
        JSON.parse(l);
        return false;
      } catch {
        return true;
      }
    });
    // Shutdown steps only: a command attempt that hit the client-side database deadline during the
    // restarts (DatabaseDeadline, then retried) is that deadline doing its work, not an overrun.
    const overran = lines.filter((l) => /shutdown step failed|did not finish in time|shutdown[^"]*deadline/i.test(l));
    expect({ code, notJson: notJson.slice(0, 10), overran }).toEqual({ code: 0, notJson: [], overran: [] });
    // Inside the workers' own deadline (SHUTDOWN_DEADLINE_MS, 15 s), with room for a loaded machine.
    expect(took).toBeLessThan(20_000);
  }, 360_000);
});
