/**
 * Closed-loop load: `callers` concurrent loops, each sending its next command as soon as the last
 * one answered, for a fixed time. Every command's latency is kept; a failed one counts as an error
 * and stops nothing, unless the flow throws LoadStop.
 */

/** Thrown by a flow that cannot go on at all (not a failed command): it ends the load. */
export class LoadStop extends Error {}

/** Latency recorder shared by the ops of one load: each command's call time goes in here. */
export class Recorder {
  private readonly ms: number[] = [];
  errors = 0;
  firstError: string | undefined;

  async time<T>(fn: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    const out = await fn();
    this.ms.push(performance.now() - t0);
    return out;
  }

  fail(err: unknown): void {
    this.errors++;
    this.firstError ??= (err as Error).message;
  }

  summary(seconds: number, callers: number): Summary {
    const sorted = Float64Array.from(this.ms).sort();
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
    return {
      callers,
      commands: sorted.length,
      perSecond: sorted.length / seconds,
      p50: at(0.5),
      p99: at(0.99),
      max: sorted[sorted.length - 1] ?? NaN,
      errors: this.errors,
      ...(this.firstError ? { firstError: this.firstError } : {}),
    };
  }
}

export interface Summary {
  callers: number;
  commands: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  firstError?: string;
}

/** Runs `loop(caller)` in `callers` concurrent loops until `seconds` have passed. */
export async function closedLoop(
  callers: number,
  seconds: number,
  loop: (caller: number, until: number) => Promise<void>,
): Promise<number> {
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(Array.from({ length: callers }, (_, i) => loop(i, until)));
  return (performance.now() - started) / 1000;
}
