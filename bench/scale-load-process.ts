import { monitorEventLoopDelay } from 'node:perf_hooks';
import { runFlows } from './scale-flows.ts';
import type { LoadResult, LoadTask } from './scale-load.ts';

/**
 * One load-generating process of the scale bench (forked by scale-load.ts): it waits for a task,
 * runs its share of the flows and sends back every latency and its own event-loop delay, so that
 * a bench whose single client process saturates cannot pass for a service that does.
 */
const RESOLUTION_MS = 10;
const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
delay.enable();

async function handle(task: LoadTask): Promise<void> {
  delay.reset();
  try {
    const run = await runFlows(task);
    // The histogram holds whole timer intervals: the resolution itself is not delay.
    const ms = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
    const result: LoadResult = {
      seconds: run.seconds,
      latencies: run.latencies,
      eventLoop: { meanMs: ms(delay.mean), p99Ms: ms(delay.percentile(99)), maxMs: ms(delay.max) },
    };
    process.send!(result);
  } catch (err) {
    process.send!({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
}

process.on('message', (task: LoadTask) => void handle(task));
// The bench that forked it is gone: nothing will ask for results any more.
process.on('disconnect', () => process.exit(0));
process.send!({ ready: true });
