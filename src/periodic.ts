import type { Logger } from 'pino';

/**
 * Runs a housekeeping task now and then in the worker role: first after `firstAfterMs`, then
 * `everyMs` after each run ends (never two at once). A failed run is logged and tried again
 * next time; stop() waits for a run in progress.
 */
export function startPeriodic(opts: { name: string; everyMs: number; firstAfterMs?: number; log: Logger; run: () => Promise<unknown> }) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    running = opts
      .run()
      .catch((err) => opts.log.warn({ err, task: opts.name }, `${opts.name} failed; will try again`))
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(tick, opts.everyMs);
      });
  };
  timer = setTimeout(tick, opts.firstAfterMs ?? opts.everyMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
