import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../chaos/cluster.ts';
import { chaosFixture, checkOutcome, FIRST_ORDER, newTally, runFlows } from '../../chaos/flows.ts';
import { isProcessAlive } from '../../src/process-alive.ts';

// The client-side database deadline (DATABASE_CLIENT_DEADLINE_MS) across repeated restarts of a
// private Postgres under load: every command finishes exactly once, and no connection of the
// service sits in a statement or a transaction on the server longer than the deadline. A call
// stuck on the client side, on a connection the restart broke, shows as a command that never
// finishes (its worker renews the job's lock the while): run with the deadline off (0), this
// test ends with commands lost and stuck.

const FLOWS = 100;
const STATEMENT_MS = 2_000;
const DEADLINE_MS = 3_000;
/** Sampling is every 250 ms and a backend's state_change is its own clock: a little room. */
const OVER_DEADLINE_MS = DEADLINE_MS + 1_500;
const RESTARTS = ['fast', 'immediate', 'fast', 'immediate', 'fast'] as const;

/** Backends of the service that were busy (not idle) for longer than the deadline, now. */
const OVERDUE = `
select pid, state, wait_event, left(query, 80) as query,
       (extract(epoch from now() - state_change) * 1000)::int as for_ms
from pg_stat_activity
where application_name = 'fulfil' and state is not null and state <> 'idle'
  and now() - state_change > make_interval(secs => $1::float8 / 1000)`;

describe('repeated Postgres restarts and the client-side deadline', () => {
  let c: Cluster;
  beforeAll(async () => {
    c = await startCluster({
      workers: 2,
      env: {
        JOB_BACKOFF_MS: '100',
        DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS),
        DATABASE_CLIENT_DEADLINE_MS: String(DEADLINE_MS),
      },
    });
    await c.seed(chaosFixture(FLOWS));
  }, 120_000);
  afterAll(async () => {
    await c?.stop();
  }, 120_000);

  it('finishes every command exactly once, and no connection stays busy past the deadline', async () => {
    const pids = [c.api.pid, ...c.workers.map((w) => w.pid)];
    // A connection of its own, so the sampling never waits on the service's pool.
    // No type fetch on connect: postgres.js starts it on connect without waiting for it, so a
    // connection lost in a restart rejects it with nobody listening (an unhandled rejection here).
    const watch = postgres(c.pg.url, {
      max: 1,
      connect_timeout: 2,
      fetch_types: false,
      onnotice: () => {},
      connection: { application_name: 'deadline-watch' },
    });
    const overdue: unknown[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        // Down while Postgres restarts: nothing to see then.
        const rows = await watch.unsafe(OVERDUE, [OVER_DEADLINE_MS]).catch(() => []);
        overdue.push(...rows);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();

    const tally = newTally();
    const flows = runFlows(c.apiUrl, FIRST_ORDER, FLOWS, 10, tally, Date.now() + 240_000);
    for (const mode of RESTARTS) {
      await new Promise((r) => setTimeout(r, 1_500));
      c.pg.stop(mode);
      await new Promise((r) => setTimeout(r, 1_500));
      c.pg.start();
    }
    const { failed } = await flows;
    // The last restart's calls have had their deadline by now; sample a while longer for them.
    await new Promise((r) => setTimeout(r, OVER_DEADLINE_MS));
    sampling = false;
    await sampler;
    await watch.end({ timeout: 1 });

    const outcome = await checkOutcome(c.db, FIRST_ORDER, FLOWS);
    expect({ crashes: c.crashes(), alive: pids.map(isProcessAlive), failed, outcome, other: tally.other, overdue }).toEqual({
      crashes: [],
      alive: pids.map(() => true),
      failed: 0,
      outcome: { lost: 0, duplicated: 0, stuck: 0 },
      other: {},
      overdue: [],
    });
  }, 330_000);
});
