import path from 'node:path';
import type { Summary } from './load.ts';
import { freePort, startServiceProcess, type ServiceProcess } from './processes.ts';
import { warmUp } from './warm-up.ts';

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
 */
export async function splitCompare(o: {
  compare: string;
  rounds: number;
  env: Record<string, string>;
  warmSeconds: number;
  takeOrder: () => number;
  measure: (name: string, url: string, watch: ServiceProcess[]) => Promise<Summary & { nodeMs?: number }>;
}): Promise<SplitRun[]> {
  const builds = [
    { build: 'this build', bin: undefined },
    { build: `before (${path.basename(path.resolve(o.compare))})`, bin: path.resolve(o.compare, 'bin/fulfil.mjs') },
  ];
  const runs: SplitRun[] = [];
  for (let round = 1; round <= o.rounds; round++) {
    const order = round % 2 === 1 ? builds : [...builds].reverse();
    for (const b of order) {
      const port = await freePort();
      const worker = await startServiceProcess('worker', { ...o.env, PORT: '0' }, undefined, b.bin);
      const api = await startServiceProcess('api', { ...o.env, PORT: String(port) }, `http://127.0.0.1:${port}/readyz`, b.bin);
      try {
        const url = `http://127.0.0.1:${port}`;
        await warmUp(url, o.takeOrder, o.warmSeconds);
        const s = await o.measure(`api + worker, ${b.build}`, url, [api, worker]);
        runs.push({ build: b.build, round, perSecond: s.perSecond, nodeMs: s.nodeMs });
      } finally {
        await api.stop();
        await worker.stop();
      }
    }
  }
  return runs;
}

/** The rounds side by side, and this build's CPU per command against the other's, round by round. */
export function splitCompareTable(runs: SplitRun[]): string {
  const builds = [...new Set(runs.map((r) => r.build))];
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
