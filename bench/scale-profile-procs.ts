import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { processTreeCpuMs } from './postgres-work.ts';

/**
 * CPU by kind of process, the whole machine's, and what the service's processes say about
 * themselves on /metrics (prom-client's event-loop delay, request and command durations).
 */
export const GROUPS = ['api', 'worker', 'postgres', 'redis', 'load'] as const;
export type Group = (typeof GROUPS)[number];
export type ProcessGroups = Record<Group, number[]>;

interface MachineTicks {
  busy: number;
  system: number;
  softirq: number;
  steal: number;
}

export interface CpuSnapshot {
  at: number;
  perPid: Map<number, number>;
  machine: MachineTicks;
  benchMs: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function machineTicks(): MachineTicks {
  // cpu  user nice system idle iowait irq softirq steal ...
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = f;
  return { busy: user + nice + system + irq + softirq, system, softirq: irq + softirq, steal };
}

/** Each process's CPU so far (a process with its direct children: postgres's backends), the machine's, the bench's own. */
export function cpuSnapshot(groups: ProcessGroups): CpuSnapshot {
  const perPid = new Map<number, number>();
  for (const group of GROUPS) for (const pid of groups[group]) perPid.set(pid, processTreeCpuMs(pid));
  const own = process.cpuUsage();
  return { at: performance.now(), perPid, machine: machineTicks(), benchMs: (own.user + own.system) / 1000 };
}

export interface CpuUse {
  seconds: number;
  /** Cores used by each group, and by its busiest process (near 1.0: that process is CPU-bound). */
  groups: Record<Group, { cores: number; busiest: number; perProcess: number[] }>;
  machine: { cores: number; busy: number; system: number; softirq: number; steal: number };
  /** This bench process: its samplers and scrapes. */
  bench: number;
}

export function cpuUse(groups: ProcessGroups, a: CpuSnapshot, b: CpuSnapshot): CpuUse {
  const seconds = (b.at - a.at) / 1000;
  const cores = (ms: number) => ms / 1000 / seconds;
  const perGroup = Object.fromEntries(
    GROUPS.map((g) => {
      const perProcess = groups[g].map((pid) => cores((b.perPid.get(pid) ?? 0) - (a.perPid.get(pid) ?? 0)));
      return [g, { cores: perProcess.reduce((x, y) => x + y, 0), busiest: Math.max(0, ...perProcess), perProcess }];
    }),
  ) as CpuUse['groups'];
  const ticks = (k: keyof MachineTicks) => (b.machine[k] - a.machine[k]) / TICKS_PER_SECOND / seconds;
  return {
    seconds,
    groups: perGroup,
    machine: { cores: cpus().length, busy: ticks('busy'), system: ticks('system'), softirq: ticks('softirq'), steal: ticks('steal') },
    bench: cores(b.benchMs - a.benchMs),
  };
}

/** Samples of one /metrics page: `name{labels}` → value. */
export type Scrape = Map<string, number>;

export async function scrape(url: string): Promise<Scrape | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    if (res.status !== 200) return undefined;
    const out: Scrape = new Map();
    for (const line of (await res.text()).split('\n')) {
      const m = /^([a-zA-Z_:][\w:]*(?:\{[^}]*\})?)\s+(\S+)/.exec(line);
      if (m) out.set(m[1]!, Number(m[2]));
    }
    return out;
  } catch {
    return undefined;
  }
}

/** Sum of a family's samples whose labels pass `keep`. */
export function sumOf(s: Scrape, name: string, keep: (labels: string) => boolean = () => true): number {
  let total = 0;
  for (const [key, value] of s) {
    const brace = key.indexOf('{');
    const family = brace === -1 ? key : key.slice(0, brace);
    if (family === name && keep(brace === -1 ? '' : key.slice(brace))) total += value;
  }
  return total;
}

export interface ServiceProcessStats {
  /** Event-loop delay since the scrape before (prom-client resets its histogram at each scrape), resolution taken out. */
  eventLoop?: { meanMs: number; p99Ms: number; maxMs: number };
  /** Mean of a histogram's observations between the two scrapes, ms, and how many. */
  mean?: { ms: number; count: number };
  relayActive?: boolean;
}

const PROM_RESOLUTION_MS = 10; // prom-client's eventLoopMonitoringPrecision default

/** What one process's /metrics says of the window between two scrapes; `histogram` picks the duration family. */
export function serviceStats(
  a: Scrape | undefined,
  b: Scrape | undefined,
  histogram: string,
  keep?: (labels: string) => boolean,
): ServiceProcessStats {
  if (!a || !b) return {};
  const lag = (k: string) => Math.max(0, (b.get(`nodejs_eventloop_lag_${k}_seconds`) ?? NaN) * 1000 - PROM_RESOLUTION_MS);
  const count = sumOf(b, `${histogram}_count`, keep) - sumOf(a, `${histogram}_count`, keep);
  const sum = sumOf(b, `${histogram}_sum`, keep) - sumOf(a, `${histogram}_sum`, keep);
  return {
    eventLoop: { meanMs: lag('mean'), p99Ms: lag('p99'), maxMs: lag('max') },
    ...(count > 0 ? { mean: { ms: (sum / count) * 1000, count } } : {}),
    ...(b.has('fulfil_outbox_relay_active') ? { relayActive: b.get('fulfil_outbox_relay_active') === 1 } : {}),
  };
}
