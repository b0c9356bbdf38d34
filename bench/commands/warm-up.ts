import { httpCaller, httpFlow } from './flows.ts';
import { closedLoop, Recorder } from './load.ts';

/**
 * Runs the mixed flows against a freshly started service for `seconds` at 32 callers, untimed and
 * uncounted, before its timed rows. A new Node process compiles its hot code while it serves
 * (V8's optimising compiler runs on helper threads), and on this service that cost about a quarter
 * of the CPU per command of a 10-second row started cold (docs/BENCHMARKS.md, "Warm and cold"):
 * the rows measure a service as it runs for hours, not its first seconds.
 */
export async function warmUp(baseUrl: string, takeOrder: () => number, seconds: number): Promise<void> {
  if (seconds <= 0) return;
  const call = httpCaller(baseUrl, 64);
  const rec = new Recorder();
  await closedLoop(32, seconds, async (_caller, until) => {
    while (performance.now() < until) await httpFlow(call, rec, takeOrder()).catch((err: unknown) => rec.fail(err));
  });
  const { errors, firstError } = rec.summary(seconds, 32);
  if (errors > 0) throw new Error(`warm-up: ${errors} failed calls (${firstError})`);
}
