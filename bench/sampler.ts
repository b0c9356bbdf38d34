/**
 * Runs `tick` about every `ms` until stopped (a tick never overlaps the one before: a slow one
 * delays the next), at most `maxTicks` times so that a bench that hangs cannot grow it without
 * end. A failing tick is counted, not thrown: a sampler must not end the run it watches.
 */
export function sampleEvery(
  ms: number,
  tick: () => Promise<void>,
  maxTicks = 20_000,
): { stop(): Promise<{ ticks: number; errors: number }> } {
  let stopped = false;
  let ticks = 0;
  let errors = 0;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped && ticks < maxTicks) {
      const t0 = performance.now();
      try {
        await tick();
        ticks++;
      } catch {
        errors++;
        if (errors > 100) return;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, ms - (performance.now() - t0)));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return {
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      return { ticks, errors };
    },
  };
}

/** Adds `n` under `key`. */
export function tally(map: Map<string, number>, key: string, n: number): void {
  map.set(key, (map.get(key) ?? 0) + n);
}
