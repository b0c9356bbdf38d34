import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { Unauthorized } from '@fulfil/contract';

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

/** Counts failed guesses per client address (auth/rate-limit.ts), shared with /v9's authentication failures. */
export interface FailureLimiter {
  checkAuthFailures(address: string): Promise<void>;
  recordAuthFailure(address: string): Promise<void>;
}

/**
 * An onRequest hook guarding an operator route. Without a configured token the route is open
 * (development on loopback only: start refuses production, or a non-loopback HOST, without
 * OPS_TOKEN). A refusal is the contract's 401 `unauthorized`, with a WWW-Authenticate challenge:
 * Basic for pages a person opens in a browser (which then prompts), Bearer for machine endpoints
 * (Prometheus). An address past its failed guesses gets 429 before its token is even compared.
 */
export function requireOpsToken(
  expected: string | undefined,
  challenge: 'basic' | 'bearer',
  failures?: FailureLimiter,
): onRequestAsyncHookHandler {
  return async (request: FastifyRequest) => {
    if (expected === undefined) return;
    await failures?.checkAuthFailures(request.ip);
    if (opsTokenMatches(presentedOpsToken(request.headers.authorization), expected)) return;
    await failures?.recordAuthFailure(request.ip);
    const err = new Unauthorized('the operator pages want OPS_TOKEN (Authorization: Bearer, or Basic with it as the password)');
    err.headers['www-authenticate'] = challenge === 'basic' ? `Basic realm="${OPS_REALM}"` : `Bearer realm="${OPS_REALM}"`;
    throw err;
  };
}

/** Whether HOST keeps the service to this machine (an open ops surface is allowed only there). */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Operator pages must not be framed by another site (clickjacking the queue board's retry and
 * clean buttons); set before the handler, so refusals carry them too.
 */
export async function denyFraming(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('x-frame-options', 'DENY');
  reply.header('content-security-policy', "frame-ancestors 'none'");
}
