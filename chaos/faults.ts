import { Redis } from 'ioredis';
import { signedFetch } from '../src/auth/signed-fetch.ts';
import type { Cluster } from './cluster.ts';
import { checkOutcome, newTally, reliableCommand, runFlows, SELLER, type Tally } from './flows.ts';

export interface Fault {
  name: string;
  /** Breaks something, and repairs it (or has it repaired) before returning. */
  inject(c: Cluster): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const FAULTS: Record<string, Fault> = {
  'worker SIGKILL': {
    name: 'worker SIGKILL',
    async inject(c) {
      await c.kill(c.workers[0]!);
      // what a supervisor does: start another one
      await c.addWorker();
    },
  },
  'Redis SIGKILL + restart from AOF': {
    name: 'Redis SIGKILL + restart from AOF',
    async inject(c) {
      await c.redis.kill();
      await sleep(2_000);
      await c.redis.start();
    },
  },
  'Redis FLUSHALL': {
    name: 'Redis FLUSHALL',
    async inject(c) {
      const r = new Redis(c.redis.url, { maxRetriesPerRequest: 1 });
      try {
        await r.flushall();
      } finally {
        r.disconnect();
      }
    },
  },
  'lost Redis reply': {
    name: 'lost Redis reply',
    async inject(c) {
      const link = c.apiRedisLink;
      if (!link) throw new Error('lost Redis reply: the cluster needs apiRedisProxy');
      // The next enqueue (its job data names the command) reaches Redis; its reply never comes
      // back. Then the link dies for a moment, so the API gives up on it: the command is taken,
      // and its caller must hear 202 (or, retrying its key, the outcome), never 503.
      const lost = link.loseRepliesAfter('"commandId"');
      const seen = await Promise.race([lost.then(() => true), sleep(10_000).then(() => false)]);
      // A run where no enqueue passed would report a fault that never happened.
      if (!seen) throw new Error('lost Redis reply: no enqueue went through the link within 10 s');
      await sleep(500);
      link.cut();
      await sleep(500);
      await link.restore();
    },
  },
  'Postgres stop -m fast': {
    name: 'Postgres stop -m fast',
    async inject(c) {
      c.pg.stop('fast');
      await sleep(2_000);
      c.pg.start();
    },
  },
  'Postgres stop -m immediate': {
    name: 'Postgres stop -m immediate',
    async inject(c) {
      c.pg.stop('immediate');
      await sleep(2_000);
      c.pg.start();
    },
  },
  'Postgres SIGSTOP 4 s': {
    name: 'Postgres SIGSTOP 4 s',
    async inject(c) {
      c.pg.freeze();
      await sleep(4_000);
      c.pg.thaw();
    },
  },
};

export interface FaultFigures {
  fault: string;
  flows: number;
  tally: Tally;
  failedFlows: number;
  lost: number;
  duplicated: number;
  stuck: number;
  /** From the fault's repair until a probe command through the whole path answered 200. */
  recoveryMs: number;
  durationMs: number;
}

/** Until /readyz is 200 and a probe command (an order accept) is answered 200 synchronously. */
async function timeToRecover(c: Cluster, probeOrder: number, deadline: number): Promise<number> {
  const started = Date.now();
  while (Date.now() < deadline) {
    const ready = await fetch(`${c.apiUrl}/readyz`, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) {
      const res = await signedFetch(
        c.apiUrl,
        SELLER,
        'POST',
        `/v9/orders/${probeOrder}/accept`,
        { reviewer_id: 100 },
        {},
        AbortSignal.timeout(15_000),
      ).then(
        (r) => r.status,
        () => 0,
      );
      if (res === 200) return Date.now() - started;
      if (res === 202) {
        // taken but not finished within COMMAND_WAIT_MS: finish it the careful way, then stop the clock
        await reliableCommand(c.apiUrl, SELLER, 'POST', `/v9/orders/${probeOrder}/accept`, { reviewer_id: 100 }, newTally(), deadline);
        return Date.now() - started;
      }
    }
    await sleep(100);
  }
  return Number.NaN;
}

/**
 * Runs `flows` accept → update → complete flows; once a third of the way in, injects the fault.
 * When every flow has ended, Postgres is asked what happened (not the clients).
 */
export async function runFaultRun(
  c: Cluster,
  fault: Fault,
  opts: { first: number; flows: number; probeOrder: number; concurrency: number; timeoutMs: number },
): Promise<FaultFigures> {
  const tally = newTally();
  const started = Date.now();
  const deadline = started + opts.timeoutMs;
  const running = runFlows(c.apiUrl, opts.first, opts.flows, opts.concurrency, tally, deadline);
  while (tally.calls < opts.flows && Date.now() < deadline) await sleep(50);
  await fault.inject(c);
  const recoveryMs = await timeToRecover(c, opts.probeOrder, deadline);
  const { failed } = await running;
  const outcome = await waitForQuiet(c, opts.first, opts.flows, deadline);
  return { fault: fault.name, flows: opts.flows, tally, failedFlows: failed, ...outcome, recoveryMs, durationMs: Date.now() - started };
}

/** Flows have ended; a command may still be finishing (a recovered job): give it until the deadline. */
async function waitForQuiet(c: Cluster, first: number, flows: number, deadline: number) {
  for (;;) {
    const outcome = await checkOutcome(c.db, first, flows);
    if (outcome.stuck === 0 || Date.now() > deadline) return outcome;
    await sleep(250);
  }
}
