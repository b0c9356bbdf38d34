import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON logs; secrets and signatures never reach a log line. */
export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  return pino({
    level,
    base: { service: 'fulfil', pid: process.pid, ...bindings },
    redact: {
      paths: ['req.headers["x-signature"]', 'req.headers.authorization', '*.secret', 'secret'],
      censor: '[redacted]',
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
