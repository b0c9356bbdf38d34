import path from 'node:path';
import type { Summary } from './load.ts';
import { startOtlpSink } from './otlp-sink.ts';
import { cpuMsOf, freePort, startServiceProcess, type ServiceProcess } from './processes.ts';

export interface TracingVariant {
  label: string;
  env: Record<string, string>;
  /** Another build's bin/fulfil.mjs (--compare): the same variant before a change, in the same run. */
  bin?: string;
}

/**
 * The variants of `--only tracing`: tracing off, on (every command sampled, exported over
 * OTLP/HTTP to the local sink as protobuf) and on with OTLP JSON; each `--variant
 * "label:K=V,K=V"` adds tracing on with those variables (OTEL_BSP_* settings, say); `--compare
 * <checkout>` adds off and on run by that checkout's build, so a change is measured against what
 * it replaces in the same run, under the same neighbours' load.
 */
export function tracingVariants(o: { sinkUrl: string; extra: string[]; compare: string | undefined; json: boolean }): TracingVariant[] {
  const on = { OTEL_EXPORTER_OTLP_ENDPOINT: o.sinkUrl, OTEL_TRACES_SAMPLER: 'always_on' };
  const variants: TracingVariant[] = [
    { label: 'tracing off', env: {} },
    { label: 'tracing on, 100 %', env: on },
    ...(o.json ? [{ label: 'tracing on, 100 %, JSON', env: { ...on, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' } }] : []),
  ];
  for (const spec of o.extra) {
    const [label, vars = ''] = spec.split(':');
    const env = Object.fromEntries(
      vars
        .split(',')
        .filter(Boolean)
        .map((kv) => kv.split('=') as [string, string]),
    );
    variants.push({ label: `tracing on, 100 %, ${label}`, env: { ...on, ...env } });
  }
  if (o.compare) {
    const bin = path.resolve(o.compare, 'bin/fulfil.mjs');
    variants.push({ label: 'before: tracing off', env: {}, bin }, { label: 'before: tracing on, 100 %', env: on, bin });
  }
  return variants;
}

/**
 * Paces flows to `rate` commands a second in all (a flow is `perFlow` commands), instead of each
 * caller sending its next as soon as the last answered: every variant then does the same work a
 * second, and its CPU per command is not moved by how much the closed loop happened to batch
 * (more commands a second share each Redis and Postgres round trip, and the timers).
 */
export function paced(
  rate: number,
  perFlow: number,
): <A extends unknown[]>(flow: (...a: A) => Promise<void>) => (...a: A) => Promise<void> {
  let next = 0;
  return (flow) =>
    async (...a) => {
      const now = performance.now();
      const slot = Math.max(now, next);
      next = slot + (perFlow * 1000) / rate;
      if (slot > now) await new Promise((r) => setTimeout(r, slot - now));
      return flow(...a);
    };
}

export interface TracingRun {
  variant: string;
  round: number;
  perSecond: number;
  cpuMsPerCommand: number;
}

/**
 * Every variant once a round, `rounds` times; each round starts with the next variant, so none
 * always runs first (on a cold Postgres) or last. With `together`, a round runs every variant's
 * service at once instead, each under its own (paced) load: the neighbours' load then weighs on
 * all of them alike, where one after the other it moves by more than tracing costs. The service's
 * CPU ms per command (from /proc) is the figure to compare.
 */
export async function tracingRounds(o: {
  rounds: number;
  levels: number[];
  env: Record<string, string>;
  extra: string[];
  compare: string | undefined;
  json: boolean;
  together: boolean;
  phase: (name: string, callers: number, svc: ServiceProcess, url: string) => Promise<Summary>;
  memory: string[];
}): Promise<TracingRun[]> {
  const sink = await startOtlpSink();
  const runs: TracingRun[] = [];
  const measure = async (v: TracingVariant, round: number, c: number, svc: ServiceProcess, url: string) => {
    const cpu0 = cpuMsOf(svc.child.pid!);
    const summary = await o.phase(`${v.label} (round ${round})`, c, svc, url);
    const perCommand = (cpuMsOf(svc.child.pid!) - cpu0) / Math.max(1, summary.commands);
    runs.push({ variant: v.label, round, perSecond: summary.perSecond, cpuMsPerCommand: perCommand });
    o.memory.push(`${v.label} (round ${round}) at ${c}: ${perCommand.toFixed(2)} CPU ms of the service per command`);
    process.stderr.write(`  ${v.label}: service CPU ${perCommand.toFixed(2)} ms per command\n`);
  };
  const start = async (v: TracingVariant) => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    return { v, url, svc: await startServiceProcess('all', { ...o.env, ...v.env, PORT: String(port) }, `${url}/readyz`, v.bin) };
  };
  try {
    const variants = tracingVariants({ sinkUrl: sink.url, extra: o.extra, compare: o.compare, json: o.json });
    for (let round = 1; round <= o.rounds; round++) {
      const first = (round - 1) % variants.length;
      const order = [...variants.slice(first), ...variants.slice(0, first)];
      if (o.together) {
        const started: Awaited<ReturnType<typeof start>>[] = [];
        try {
          for (const v of order) started.push(await start(v));
          for (const c of o.levels) await Promise.all(started.map((s) => measure(s.v, round, c, s.svc, s.url)));
        } finally {
          await Promise.all(started.map((s) => s.svc.stop()));
        }
        continue;
      }
      for (const v of order) {
        const s = await start(v);
        try {
          for (const c of o.levels) await measure(v, round, c, s.svc, s.url);
        } finally {
          await s.svc.stop();
        }
      }
    }
    for (const [type, n] of sink.bytes()) o.memory.push(`OTLP received ${(n / 1048576).toFixed(1)} MiB of spans as ${type}`);
  } finally {
    await sink.close();
  }
  return runs;
}

/**
 * Each variant's rounds beside tracing off's in the same round (and a `before:` variant beside
 * `before: tracing off`): the mean of the per-round ratios, so a round the neighbours slowed
 * weighs on both sides alike.
 */
export function tracingSummary(runs: TracingRun[]): string {
  const variants = [...new Set(runs.map((r) => r.variant))];
  const baseOf = (v: string) => (v.startsWith('before: ') ? 'before: tracing off' : 'tracing off');
  const lines = [
    '| variant | commands/s by round | CPU ms/command by round | mean CPU ms | CPU vs off, same rounds | commands/s vs off, same rounds |',
    '|---|---|---|---:|---:|---:|',
  ];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const pct = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(0)} %`;
  for (const v of variants) {
    const mine = runs.filter((r) => r.variant === v);
    const ratios = (key: 'perSecond' | 'cpuMsPerCommand') =>
      mine.flatMap((r) => {
        const base = runs.find((b) => b.variant === baseOf(v) && b.round === r.round);
        return base && base[key] > 0 ? [r[key] / base[key] - 1] : [];
      });
    const isBase = v === baseOf(v);
    lines.push(
      `| ${v} | ${mine.map((r) => r.perSecond.toFixed(0)).join(', ')} | ${mine.map((r) => r.cpuMsPerCommand.toFixed(2)).join(', ')} | ${mean(mine.map((r) => r.cpuMsPerCommand)).toFixed(2)} | ${isBase ? '–' : pct(mean(ratios('cpuMsPerCommand')))} | ${isBase ? '–' : pct(mean(ratios('perSecond')))} |`,
    );
  }
  return lines.join('\n');
}
