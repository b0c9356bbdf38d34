import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { Unauthorized } from '../errors.ts';

/** The realm a browser shows when it asks for the ops token (HTTP Basic, any user name). */
export const OPS_REALM = 'fulfil ops';

/**
 * The token an Authorization header carries: `Bearer <token>`, or HTTP Basic with the token as
 * the password (the user name is ignored, so a browser's login prompt works). Never the query
 * string: a token there lands in request logs, proxies and browser history.
 */
export function presentedOpsToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const m = /^(\S+)\s+(\S+)\s*$/.exec(authorization);
  if (!m) return undefined;
  const scheme = m[1]!.toLowerCase();
  if (scheme === 'bearer') return m[2]!;
  if (scheme === 'basic') {
    const decoded = Buffer.from(m[2]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon < 0 ? undefined : decoded.slice(colon + 1);
  }
  return undefined;
}

/**
 * Constant-time comparison: both sides are hashed first, so neither the content nor the length
 * of the expected token shows in how long a wrong guess takes.
 */
export function opsTokenMatches(given: string | undefined, expected: string): boolean {
  const a = createHash('sha256')
    .update(given ?? '')
    .digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && given !== undefined;
}

/**
 * An onRequest hook guarding an operator route. Without a configured token the route is open
 * (development and tests only: config refuses NODE_ENV=production without OPS_TOKEN). A refusal
 * is the contract's 401 `unauthorized`, with a WWW-Authenticate challenge: Basic for pages a
 * person opens in a browser (which then prompts), Bearer for machine endpoints (Prometheus).
 */
export function requireOpsToken(expected: string | undefined, challenge: 'basic' | 'bearer'): onRequestAsyncHookHandler {
  return async (request: FastifyRequest) => {
    if (expected === undefined) return;
    if (opsTokenMatches(presentedOpsToken(request.headers.authorization), expected)) return;
    const err = new Unauthorized('the operator pages want OPS_TOKEN (Authorization: Bearer, or Basic with it as the password)');
    err.headers['www-authenticate'] = challenge === 'basic' ? `Basic realm="${OPS_REALM}"` : `Bearer realm="${OPS_REALM}"`;
    throw err;
  };
}
