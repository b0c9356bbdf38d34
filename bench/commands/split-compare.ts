import path from 'node:path';
import type { Summary } from './load.ts';
import { freePort, startServiceProcess, type ServiceProcess } from './processes.ts';
import { warmUp } from './warm-up.ts';

const THIS_BUILD = 'this build';

/** One build's measured row in one round. */
export interface SplitRun {
  build: string;
  round: number;
  perSecond: number;
  /** Node CPU ms per command of the api and worker processes together, from /proc. */
  nodeMs: number | undefined;
}

/**
 * `--only split --compare <checkout>`: this build's api + worker beside another checkout's (its
 * bin/fulfil.mjs, against the same database), alternated `rounds` times, each round led by the
 * other build, so neither always runs first. Each run starts fresh processes and warms them up
 * first (V8 compiles the hot code in the first seconds); then one row at `callers`. Where CPU per
 * command is the figure, `--rate` paces both builds to the same commands/s, so neither is
 * credited for batching more because it ran faster.
 *
 * `--together` runs both builds at once in each round instead, each under its own load of
 * `callers`, with a database and a queue prefix of its own (one relay leads per database: a shared
 * one would put both builds' relaying on one of them). On a machine whose speed drifts by more
 * than the difference measured (a shared VM), one after the other the drift lands on one build;
 * at once it weighs on both alike. Node CPU per command is each build's own processes' (from
 * /proc); the Postgres and Redis figures are the first database's backends and the whole server,
 * so they are not the builds' own.
 */
export async function splitCompare(o: {
  compare: string;
  rounds: number;
  together?: boolean;
  env: Record<string, string>;
  /** Together: what the second build's processes get instead (a database and queue prefix of their own). */
  secondEnv: Record<string, string>;
  warmSeconds: number;
  takeOrder: () => number;
  measure: (name: string, url: string, watch: ServiceProcess[]) => Promise<Summary & { nodeMs?: number }>;
}): Promise<SplitRun[]> {
  const builds = [
    { build: THIS_BUILD, bin: undefined, flags: process.env.BENCH_NODE_FLAGS },
    // BENCH_NODE_FLAGS_BEFORE: Node's flags of the other build alone, to weigh a runtime setting
    // against the same code (--compare a checkout of this build).
    {
      build: `before (${path.basename(path.resolve(o.compare))})`,
      bin: path.resolve(o.compare, 'bin/fulfil.mjs'),
      flags: process.env.BENCH_NODE_FLAGS_BEFORE ?? process.env.BENCH_NODE_FLAGS,
    },
  ];
  const runs: SplitRun[] = [];
  const start = async (b: (typeof builds)[number], env: Record<string, string>) => {
    const port = await freePort();
    const worker = await startServiceProcess('worker', { ...env, PORT: '0' }, undefined, b.bin, b.flags);
    const api = await startServiceProcess('api', { ...env, PORT: String(port) }, `http://127.0.0.1:${port}/readyz`, b.bin, b.flags).catch(
      async (err: unknown) => {
        await worker.stop();
        throw err;
      },
    );
    return { b, url: `http://127.0.0.1:${port}`, processes: [api, worker], stop: () => Promise.all([api.stop(), worker.stop()]) };
  };
  const measure = async (s: Awaited<ReturnType<typeof start>>, round: number) => {
    const m = await o.measure(`api + worker, ${s.b.build}${o.together ? ', together' : ''}`, s.url, s.processes);
    runs.push({ build: s.b.build, round, perSecond: m.perSecond, nodeMs: m.nodeMs });
  };
  for (let round = 1; round <= o.rounds; round++) {
    const order = round % 2 === 1 ? builds : [...builds].reverse();
    if (o.together) {
      const started: Awaited<ReturnType<typeof start>>[] = [];
      try {
        for (const b of order) started.push(await start(b, b === builds[0] ? o.env : { ...o.env, ...o.secondEnv }));
        await Promise.all(started.map((s) => warmUp(s.url, o.takeOrder, o.warmSeconds)));
        await Promise.all(started.map((s) => measure(s, round)));
      } finally {
        await Promise.all(started.map((s) => s.stop()));
      }
      continue;
    }
    for (const b of order) {
      const s = await start(b, o.env);
      try {
        await warmUp(s.url, o.takeOrder, o.warmSeconds);
        await measure(s, round);
      } finally {
        await s.stop();
      }
    }
  }
  return runs;
}

/** The rounds side by side, and this build's CPU per command against the other's, round by round. */
export function splitCompareTable(runs: SplitRun[]): string {
  // This build first, whichever finished first in a round.
  const builds = [...new Set(runs.map((r) => r.build))].sort((a, b) => Number(b === THIS_BUILD) - Number(a === THIS_BUILD));
  const [mine, before] = builds;
  const lines = ['| build | commands/s by round | Node CPU ms/command by round | mean | vs before, same round |', '|---|---|---|---:|---|'];
  for (const b of builds) {
    const own = runs.filter((r) => r.build === b);
    const cpu = own.map((r) => r.nodeMs).filter((v): v is number => v !== undefined);
    const mean = cpu.length ? cpu.reduce((a, v) => a + v, 0) / cpu.length : undefined;
    const ratios =
      b === mine
        ? own.map((r) => {
            const other = runs.find((x) => x.build === before && x.round === r.round);
            return r.nodeMs !== undefined && other?.nodeMs ? `${(r.nodeMs / other.nodeMs).toFixed(2)} ×` : '–';
          })
        : [];
    lines.push(
      `| ${b} | ${own.map((r) => r.perSecond.toFixed(0)).join(' · ')} | ${own.map((r) => r.nodeMs?.toFixed(2) ?? '–').join(' · ')} | ${mean?.toFixed(2) ?? '–'} | ${ratios.join(' · ')} |`,
    );
  }
  return lines.join('\n');
}
