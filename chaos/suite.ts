import { runAuthMatrix, type AuthFigures } from './auth-matrix.ts';
import { startCluster } from './cluster.ts';
import { FAULTS, runFaultRun, type FaultFigures } from './faults.ts';
import { chaosFixture, FIRST_ORDER, SELLER } from './flows.ts';
import { runFuzz, type FuzzFigures } from './fuzz.ts';
import { runGuestAbuse, type GuestFigures } from './guest-session.ts';
import { runSlowClients, type SlowFigures } from './slow-clients.ts';
import { runConnectionExhaustion, type ExhaustionFigures } from './connection-exhaustion.ts';

export interface ChaosOptions {
  faults: string[];
  flowsPerFault: number;
  concurrency: number;
  fuzzCases: number;
  slowClients: number;
  seed: number;
  /** Environment of the service processes on top of the cluster's defaults. */
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface ChaosFigures {
  faults: FaultFigures[];
  fuzz: FuzzFigures;
  auth: AuthFigures;
  slow: SlowFigures;
  guest: GuestFigures;
  exhaustion: ExhaustionFigures;
  crashes: Array<{ name: string; pid: number; how: string }>;
  totals: {
    flows: number;
    calls: number;
    s200: number;
    s202: number;
    s4xx: number;
    s5xx: number;
    s503: number;
    lost: number;
    duplicated: number;
    stuck: number;
  };
  durationMs: number;
}

/**
 * What `npm test` runs: the same checks, smaller. The worker SIGKILL is left to the full run:
 * the killed worker's jobs wait out BullMQ's 30 s lock before another worker takes them.
 */
export const SHORT: ChaosOptions = {
  faults: ['Postgres stop -m fast', 'Redis SIGKILL + restart from AOF', 'Redis FLUSHALL', 'lost Redis reply'],
  flowsPerFault: 70,
  concurrency: 12,
  fuzzCases: 3_000,
  slowClients: 20,
  seed: 20261122,
  env: { HTTP_REQUEST_TIMEOUT_MS: '3000', HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_MAX_CONNECTIONS: '300' },
};

export const FULL: ChaosOptions = {
  faults: Object.keys(FAULTS),
  flowsPerFault: 500,
  concurrency: 16,
  fuzzCases: 24_000,
  slowClients: 150,
  seed: 20261122,
};

/** The whole suite on one private cluster (Postgres, Redis, an API and two workers). */
export async function runChaos(opts: ChaosOptions): Promise<ChaosFigures> {
  const log = opts.log ?? (() => {});
  const started = Date.now();
  const probes = opts.faults.length;
  const flowsTotal = opts.faults.length * opts.flowsPerFault;
  // orders: the flows, then one probe per fault, then two for the auth matrix
  const c = await startCluster({ workers: 2, env: opts.env, apiRedisProxy: opts.faults.includes('lost Redis reply') });
  try {
    await c.seed(chaosFixture(flowsTotal + probes + 2));
    const faults: FaultFigures[] = [];
    for (const [i, name] of opts.faults.entries()) {
      const fault = FAULTS[name];
      if (!fault) throw new Error(`unknown fault ${name}`);
      const f = await runFaultRun(c, fault, {
        first: FIRST_ORDER + i * opts.flowsPerFault,
        flows: opts.flowsPerFault,
        probeOrder: FIRST_ORDER + flowsTotal + i,
        concurrency: opts.concurrency,
        timeoutMs: 240_000,
      });
      faults.push(f);
      log(
        `fault "${name}": ${f.flows} flows, ${f.tally.calls} calls (200 ${f.tally.s200}, 202 ${f.tally.s202}, 4xx ${f.tally.s4xx}, 5xx ${f.tally.s5xx} of which 503 ${f.tally.s503}, refused connections ${f.tally.network}); lost ${f.lost}, duplicated ${f.duplicated}, stuck ${f.stuck}; recovery ${(f.recoveryMs / 1000).toFixed(1)} s; run took ${(f.durationMs / 1000).toFixed(1)} s`,
      );
    }
    const auth = await runAuthMatrix(c, FIRST_ORDER + flowsTotal + probes, FIRST_ORDER + flowsTotal + probes + 1);
    log(`auth matrix: ${auth.cases} cases, ${auth.refused} refused in the contract's shape, ${auth.dataReturned} returned data`);
    const fuzz = await runFuzz(c.apiUrl, opts.fuzzCases, opts.seed);
    log(`fuzz: ${fuzz.cases} cases, by status ${JSON.stringify(fuzz.byStatus)}, 5xx ${fuzz.fivexx}, wrong error shape ${fuzz.badShape}`);
    const slow = await runSlowClients(c.apiUrl, opts.slowClients, Number(c.env.HTTP_REQUEST_TIMEOUT_MS ?? 30_000));
    log(`slow clients: ${slow.clients}, closed within ${slow.limitMs} ms: ${slow.closedInTime}, last closed after ${slow.maxCloseMs} ms`);
    const guest = await runGuestAbuse(c.redis.url, 'chaosguest');
    log(
      `guest session abuse (embedded database): ${guest.abuses} abuses, commands answered 200 after them ${guest.commandsOk}, longest /livez ${guest.maxLivezMs} ms (a guest slept ${guest.guestSleepMs} ms), ready at the end ${guest.readyAtEnd}`,
    );
    const exhaustion = await runConnectionExhaustion(c.apiUrl, SELLER, Number(c.env.HTTP_MAX_CONNECTIONS ?? 1_000));
    log(
      `connection exhaustion: ${exhaustion.attackerSockets} idle sockets from 11 addresses, the victim's answers ${exhaustion.victimStatuses.join(', ')}`,
    );
    const sum = (k: 'calls' | 's200' | 's202' | 's4xx' | 's5xx' | 's503') => faults.reduce((n, f) => n + f.tally[k], 0);
    return {
      faults,
      fuzz,
      auth,
      slow,
      guest,
      exhaustion,
      crashes: c.crashes(),
      totals: {
        flows: flowsTotal,
        calls: sum('calls'),
        s200: sum('s200'),
        s202: sum('s202'),
        s4xx: sum('s4xx'),
        s5xx: sum('s5xx'),
        s503: sum('s503'),
        lost: faults.reduce((n, f) => n + f.lost + f.failedFlows, 0),
        duplicated: faults.reduce((n, f) => n + f.duplicated, 0),
        stuck: faults.reduce((n, f) => n + f.stuck, 0),
      },
      durationMs: Date.now() - started,
    };
  } finally {
    await c.stop();
  }
}

/** Every promise the suite checks; empty when all hold. */
export function violations(f: ChaosFigures): string[] {
  const out: string[] = [];
  if (f.totals.lost) out.push(`${f.totals.lost} flows lost`);
  if (f.totals.duplicated) out.push(`${f.totals.duplicated} orders with duplicated shipments`);
  if (f.totals.stuck) out.push(`${f.totals.stuck} commands stuck`);
  if (f.totals.s5xx !== f.totals.s503) out.push(`${f.totals.s5xx - f.totals.s503} 5xx other than 503 in the fault runs`);
  if (f.totals.s4xx) out.push(`${f.totals.s4xx} 4xx answers to valid flow calls`);
  if (f.crashes.length) out.push(`crashed processes: ${JSON.stringify(f.crashes)}`);
  if (f.faults.some((x) => Number.isNaN(x.recoveryMs))) out.push('a fault from which the service did not recover');
  if (f.fuzz.fivexx || f.fuzz.badShape)
    out.push(`fuzz: ${f.fuzz.fivexx} 5xx, ${f.fuzz.badShape} wrong shape: ${f.fuzz.failures.slice(0, 5).join(' | ')}`);
  if (f.auth.dataReturned) out.push(`auth matrix: ${f.auth.dataReturned} cases returned data: ${f.auth.failures.slice(0, 5).join(' | ')}`);
  if (f.slow.stillOpen) out.push(`${f.slow.stillOpen} slow clients not closed within ${f.slow.limitMs} ms`);
  if (f.guest.failures.length) out.push(`guest session abuse: ${f.guest.failures.join(' | ')}`);
  if (f.exhaustion.victimStatuses.some((s) => s !== 200))
    out.push(`connection exhaustion: the victim was answered ${f.exhaustion.victimStatuses.join(', ')} (200 expected each time)`);
  return out;
}
