import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../chaos/cluster.ts';
import { chaosFixture } from '../../chaos/flows.ts';

/**
 * A worker told to stop while its Redis is away (every connection reconnecting) stops within
 * its shutdown deadline, and no step of the shutdown runs into its own deadline: there is
 * nothing to hand back to a Redis that is not there, so waiting on it only delays the exit.
 */
describe('shutdown during a Redis outage', () => {
  let c: Cluster;
  beforeAll(async () => {
    c = await startCluster({ workers: 1, env: { SHUTDOWN_DEADLINE_MS: '15000' } });
    await c.seed(chaosFixture(1));
  }, 120_000);
  afterAll(async () => {
    await c?.stop();
  }, 120_000);

  it('exits 0 within the deadline with no step overrunning', async () => {
    const worker = c.workers[0]!;
    await c.redis.kill();
    // Long enough for every connection to have seen the loss and be waiting to reconnect.
    await new Promise((r) => setTimeout(r, 3_000));
    const exited = new Promise<number | null>((r) => worker.child.once('exit', (code) => r(code)));
    const started = performance.now();
    worker.child.kill('SIGTERM');
    const code = await exited;
    const took = performance.now() - started;
    await c.redis.start();

    const lines = readFileSync(worker.logFile, 'utf8').split('\n').filter(Boolean);
    const overran = lines.filter((l) => /shutdown step failed|did not finish in time/i.test(l));
    expect({ code, overran }).toEqual({ code: 0, overran: [] });
    expect(took).toBeLessThan(15_000);
  }, 120_000);
});
