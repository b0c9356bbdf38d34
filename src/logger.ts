import { pino, type Logger } from 'pino';
import { withoutLinkToken } from './link-tokens.ts';

export type { Logger };

/**
 * drizzle puts a failed query's parameters into its error message ("Failed query: …\nparams: …")
 * and onto the error; postgres.js keeps them on its errors too. The parameters are tokens,
 * names, addresses: they never reach a log line. The SQL text (no values) stays, it helps.
 */
const PARAMS_LINE = /\n\s*params: .*$/gm;
const PARAM_KEYS = new Set(['params', 'parameters', 'args']);

export function scrubText(text: string): string {
  return text.replace(PARAMS_LINE, '\nparams: [redacted]');
}

/** pino's error serializer, minus query parameters anywhere in the error or its causes. */
export function safeError(err: unknown): unknown {
  if (typeof err === 'string') return scrubText(err);
  if (!(err instanceof Error) && (typeof err !== 'object' || err === null)) return err;
  return scrub(pino.stdSerializers.err(err as Error), 0);
}

function scrub(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (typeof value !== 'object' || value === null || depth > 6) return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (PARAM_KEYS.has(key)) out[key] = '[redacted]';
    else out[key] = scrub(v, depth + 1);
  }
  return out;
}

/** The request as logged: no query string (it may carry personal data), no headers. */
function safeRequest(req: { method?: string; url?: string; hostname?: string; ip?: string; socket?: { remotePort?: number } }) {
  return {
    method: req.method,
    // A one-time link's path carries its token, which works as a credential: only its hint is logged.
    url: typeof req.url === 'string' ? withoutLinkToken(req.url.split('?')[0]!) : req.url,
    hostname: req.hostname,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** JSON logs; secrets, signatures, tokens and query parameters never reach a log line. */
export function createLogger(level: string, bindings: Record<string, unknown> = {}, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'fulfil', pid: process.pid, ...bindings },
    redact: {
      paths: [
        'req.headers["x-signature"]',
        'req.headers["x-token"]',
        'req.headers.authorization',
        '*.secret',
        'secret',
        '*.password',
        'password',
      ],
      censor: '[redacted]',
    },
    serializers: { err: safeError, error: safeError, req: safeRequest },
    hooks: {
      // A message built from an error's text ("…: " + err.message) is scrubbed as well.
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? scrubText(a) : a)) as Parameters<typeof method>);
      },
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  // Tests read what the service would print, through the same redaction.
  return destination ? pino(options, destination) : pino(options);
}
