import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { percentile, type FlowRun } from './scale-flows.ts';

/** What the bench asks of one load process (scale-load-process.ts): runFlows' options. */
export interface LoadTask {
  apiUrls: string[];
  clients: number;
  orders: [number, number];
  step: number;
  credential: { token: string; secret: string };
}

/** Event-loop delay over a run, the timer resolution taken out. */
export interface EventLoopStats {
  meanMs: number;
  p99Ms: number;
  maxMs: number;
}

export interface LoadResult {
  seconds: number;
  latencies: number[];
  eventLoop: EventLoopStats;
}

export interface LoadRun extends FlowRun {
  /** Each load process's own wall time and event-loop delay. */
  processes: Array<{ pid: number; clients: number; seconds: number; eventLoop: EventLoopStats }>;
}

export interface LoadFleet {
  pids: number[];
  run(orders: [number, number]): Promise<LoadRun>;
  stop(): Promise<void>;
}

/** Load processes for a number of clients: one per 128 clients unless told. */
export function defaultLoadProcesses(clients: number): number {
  return Math.max(1, Math.ceil(clients / 128));
}

type Message = LoadResult | { error: string } | { ready: true };

function nextMessage(child: ChildProcess): Promise<Message> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`load process ${child.pid} exited (${code}) before answering`));
    child.once('exit', onExit);
    child.once('message', (m: Message) => {
      child.off('exit', onExit);
      resolve(m);
    });
  });
}

/**
 * `procs` forked load processes sharing `clients` (and every run's orders, each the next of
 * every procs-th) over all API processes; a run's wall time is from handing out the work to the
 * last process's answer, and its percentiles are over the calls of all of them.
 */
export async function startLoad(o: {
  procs: number;
  clients: number;
  apiUrls: string[];
  credential: LoadTask['credential'];
}): Promise<LoadFleet> {
  const n = Math.max(1, Math.min(o.procs, o.clients));
  const entry = fileURLToPath(new URL('./scale-load-process.ts', import.meta.url));
  const children = Array.from({ length: n }, () =>
    fork(entry, [], { execArgv: process.execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }),
  );
  const stop = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }),
    );
  };
  try {
    await Promise.all(children.map(nextMessage));
  } catch (err) {
    await stop();
    throw err;
  }
  const clientsOf = (i: number) => Math.floor(o.clients / n) + (i < o.clients % n ? 1 : 0);
  const run = async (orders: [number, number]): Promise<LoadRun> => {
    const started = performance.now();
    const answers = await Promise.all(
      children.map((child, i) => {
        const answer = nextMessage(child);
        const task: LoadTask = {
          apiUrls: o.apiUrls,
          clients: clientsOf(i),
          orders: [orders[0] + i, orders[1]],
          step: n,
          credential: o.credential,
        };
        child.send(task);
        return answer;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const results = answers.map((a) => {
      if ('error' in a) throw new Error(`load process: ${a.error}`);
      if (!('latencies' in a)) throw new Error('load process: unexpected message');
      return a;
    });
    const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
    return {
      seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      latencies,
      processes: results.map((r, i) => ({ pid: children[i]!.pid!, clients: clientsOf(i), seconds: r.seconds, eventLoop: r.eventLoop })),
    };
  };
  return { pids: children.map((c) => c.pid!), run, stop };
}
