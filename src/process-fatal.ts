import { isInfrastructureError } from './infrastructure-errors.ts';
import type { Logger } from './logger.ts';

/** The exit code of a process that stopped on an unexpected error (a supervisor restarts it). */
export const FATAL_EXIT_CODE = 70;

/**
 * Process-level last resort, for errors no request or job caught. An infrastructure error
 * (Postgres or Redis unreachable, a connection reset) is logged and survived: the pools
 * reconnect on their own and the process keeps serving. Anything else is a bug whose effects
 * are unknown, so the process logs one line and exits non-zero, for its supervisor (compose
 * `restart:`, systemd `Restart=on-failure`, Kubernetes) to start a clean one. Jobs it held are
 * delivered again (at least once; idempotency lives in Postgres).
 */
export function installFatalHandlers(log: Logger, exit: (code: number) => void = (code) => process.exit(code)): () => void {
  const handle = (origin: 'uncaughtException' | 'unhandledRejection') => (err: unknown) => {
    if (isInfrastructureError(err)) {
      log.warn({ err, origin }, 'infrastructure error outside any request or job; survived');
      return;
    }
    // pino writes to stdout synchronously, so the line is out before the exit.
    log.fatal({ err, origin }, 'unexpected error; exiting so that a supervisor restarts the process');
    exit(FATAL_EXIT_CODE);
  };
  const onException = handle('uncaughtException');
  const onRejection = handle('unhandledRejection');
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}
