import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * What keeps another site from sending an operator's browser's forms (D-162). The browser sends
 * the OPS_TOKEN with every request to the service (Basic), so a form posted from anywhere would
 * carry it: every /ops form that changes something must come from a page of this service (Origin,
 * or Referer where an older browser sends no Origin; neither is refused) and carry the form token
 * of the operator's session: an HMAC of a random session cookie the pages set, which another
 * site, a sibling subdomain that can set cookies for the parent domain included, cannot compute.
 */
export const FORM_SESSION_COOKIE = 'fulfil_ops_session';
export const FORM_TOKEN_FIELD = 'form_token';

const SESSION = /^[0-9a-f]{32}$/;

export class FormGuard {
  private readonly key: Buffer;

  /** Keyed by OPS_TOKEN where there is one, so every API process behind a balancer makes the same tokens; else a key of this process. */
  constructor(
    opsToken: string | undefined,
    private readonly publicHosts: readonly string[] = [],
  ) {
    this.key = opsToken ? createHmac('sha256', 'fulfil ops form tokens').update(opsToken).digest() : randomBytes(32);
  }

  /** The form token of this request's session; a request without a session gets one (a cookie on the reply). */
  tokenFor(request: FastifyRequest, reply: FastifyReply): string {
    let session = sessionOf(request);
    if (!session) {
      session = randomBytes(16).toString('hex');
      const secure = request.protocol === 'https' ? '; Secure' : '';
      reply.header('set-cookie', `${FORM_SESSION_COOKIE}=${session}; Path=/ops; HttpOnly; SameSite=Strict${secure}`);
    }
    return this.sign(session);
  }

  /** Why a form post is refused, in a sentence for the page; undefined when it came from this service's page of this session. */
  refusal(request: FastifyRequest, form: Record<string, unknown>): string | undefined {
    const origin = this.sameOrigin(request);
    if (origin) return origin;
    const session = sessionOf(request);
    const given = form[FORM_TOKEN_FIELD];
    if (!session || typeof given !== 'string' || !equal(given, this.sign(session))) {
      return 'refused: the form token is missing or not of this session; reload the page and send the form again';
    }
    return undefined;
  }

  /** Why a request is not from this service's own pages (Origin, else Referer, against its host); undefined when it is. */
  sameOrigin(request: FastifyRequest): string | undefined {
    if (request.headers['sec-fetch-site'] === 'cross-site') return 'refused: the form was sent from another site';
    const origin = request.headers.origin;
    const referer = request.headers.referer;
    const from = typeof origin === 'string' && origin !== '' ? origin : typeof referer === 'string' && referer !== '' ? referer : undefined;
    if (from === undefined) return 'refused: the request names no origin (no Origin or Referer header); send the form from the page';
    let host: string;
    try {
      host = new URL(from).host.toLowerCase();
    } catch {
      return 'refused: the form was sent from another site';
    }
    const own = String(request.headers.host ?? '').toLowerCase();
    const hostname = host.replace(/:\d+$/, '');
    if (host === own || this.publicHosts.some((h) => h.toLowerCase() === host || h.toLowerCase() === hostname)) return undefined;
    return 'refused: the form was sent from another site';
  }

  private sign(session: string): string {
    return createHmac('sha256', this.key).update(`form:${session}`).digest('base64url');
  }
}

function sessionOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === FORM_SESSION_COOKIE) {
      const v = value.join('=');
      return SESSION.test(v) ? v : undefined;
    }
  }
  return undefined;
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
