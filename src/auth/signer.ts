import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Request signatures (docs/API.md §Signature). Pure: no I/O, so the server, the CLI and tests share one
 * definition of what is signed.
 *
 *   S = METHOD + " " + host + path + "?" + rest,   signature = base64(HMAC-SHA256(secret, S))
 *
 * rest is the raw body when there is one, else the query. The query is canonicalised (pairs sorted
 * by percent-encoded key); the server also accepts the forms existing clients send (see
 * acceptedStringsToSign).
 */

export type QueryValue = string | number | boolean;
export type QueryInput =
  | string
  | URLSearchParams
  | ReadonlyArray<readonly [string, QueryValue]>
  | Readonly<Record<string, QueryValue | readonly QueryValue[] | null | undefined>>;

export interface SignatureParts {
  method: string;
  /** Host name as signed: without port, unless a compatibility form is being built. */
  host: string;
  path: string;
  /** The query form, or the raw body bytes of a request that has a body. */
  rest: string | Uint8Array;
}

/** RFC 3986 unreserved characters stay, everything else is %XX (encodeURIComponent leaves !'()* alone). */
export function percentEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function percentDecode(s: string): string {
  const spaced = s.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    // A malformed escape is kept literally; such a client can still match the raw form.
    return spaced;
  }
}

/** Pairs of a query string, decoded, in the order received; empty segments ("a=1&&b=2") are dropped. */
export function parseQuery(raw: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    pairs.push(eq === -1 ? [percentDecode(part), ''] : [percentDecode(part.slice(0, eq)), percentDecode(part.slice(eq + 1))]);
  }
  return pairs;
}

function toPairs(query: QueryInput): Array<[string, string]> {
  if (typeof query === 'string') return parseQuery(query.startsWith('?') ? query.slice(1) : query);
  if (query instanceof URLSearchParams) return [...query.entries()];
  if (Array.isArray(query)) return (query as ReadonlyArray<readonly [string, QueryValue]>).map(([k, v]) => [k, String(v)]);
  const pairs: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(query as Record<string, QueryValue | readonly QueryValue[] | null | undefined>)) {
    if (value === null || value === undefined) continue;
    for (const v of Array.isArray(value) ? (value as readonly QueryValue[]) : [value as QueryValue]) pairs.push([key, String(v)]);
  }
  return pairs;
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function join(pairs: Array<[string, string]>): string {
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

/**
 * The canonical query: pairs percent-encoded, then sorted by encoded key. The sort is stable, so
 * repeated keys (a[]=2&a[]=1) keep their order, which is their meaning.
 */
export function canonicalQuery(query: QueryInput): string {
  const encoded = toPairs(query).map(([k, v]): [string, string] => [percentEncode(k), percentEncode(v)]);
  return join(encoded.sort((a, b) => byCodeUnits(a[0], b[0])));
}

/**
 * Compatibility form: pairs in the order received, stable-sorted by their top-level name (the
 * part before "["), then percent-encoded. A widely used client signs its params this way, so
 * page[items]=2&page[cursor]=1 stays in that order.
 */
export function topLevelSortedQuery(query: QueryInput): string {
  const topLevel = (key: string) => key.split('[', 1)[0] ?? key;
  const sorted = toPairs(query).sort((a, b) => byCodeUnits(topLevel(a[0]), topLevel(b[0])));
  return join(sorted.map(([k, v]): [string, string] => [percentEncode(k), percentEncode(v)]));
}

/** "api.example.com:8443" → "api.example.com"; "[::1]:3000" → "[::1]". */
export function hostWithoutPort(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  return colon !== -1 && colon === host.lastIndexOf(':') ? host.slice(0, colon) : host;
}

export function stringToSign(parts: SignatureParts): Buffer {
  const head = Buffer.from(`${parts.method.toUpperCase()} ${parts.host}${parts.path}?`, 'utf8');
  const rest = typeof parts.rest === 'string' ? Buffer.from(parts.rest, 'utf8') : parts.rest;
  return Buffer.concat([head, rest]);
}

function hmac(secret: string, data: Uint8Array): string {
  return createHmac('sha256', secret).update(data).digest('base64');
}

/** base64 (standard, padded) HMAC-SHA256 of the string to sign. */
export function signatureFor(secret: string, parts: SignatureParts): string {
  return hmac(secret, stringToSign(parts));
}

/** A request as it reached the server, before any interpretation. */
export interface IncomingRequest {
  method: string;
  /** The Host header as received; it may carry a port. */
  host: string;
  /** The request target as received: path, then "?" and the raw query when there is one. */
  url: string;
  /** The body bytes as received; absent or empty means the request has no body. */
  body?: Uint8Array | undefined;
  /**
   * PUBLIC_HOST: the host names clients sign. When given, only these verify (each with and
   * without its port) and the Host header is ignored: a proxy may rewrite it, and a client must
   * not be able to pick the name its signature is checked against.
   */
  publicHosts?: readonly string[] | undefined;
}

/**
 * Characters a query may carry unencoded (RFC 3986 pchar, "/", "?", plus the brackets clients
 * send in page[items]). The raw query form is accepted only when it stays within them, so a
 * JSON body (which has "{" and '"') can never verify as a query: a signature made over a body
 * cannot be replayed with that text moved into the query of a request without body.
 */
const QUERY_SYNTAX = /^[A-Za-z0-9\-._~%!$&'()*+,;=:@/?[\]]*$/;

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}

/**
 * Every string to sign the server accepts for this request: each host form (the Host header
 * without and with its port, or only the PUBLIC_HOST names when configured) times each rest
 * form. A request with a body is verified against its body only; one without a body against its
 * query only (canonical, top-level sorted, and the raw query when it is in query syntax).
 * At most a dozen HMACs per request.
 */
export function acceptedStringsToSign(req: IncomingRequest): Buffer[] {
  const q = req.url.indexOf('?');
  const path = q === -1 ? req.url : req.url.slice(0, q);
  const rawQuery = q === -1 ? '' : req.url.slice(q + 1);
  const named = req.publicHosts && req.publicHosts.length > 0 ? req.publicHosts : [req.host];
  const hosts = unique(named.flatMap((h) => [hostWithoutPort(h), h]).filter((h) => h !== ''));
  const rests: Array<string | Uint8Array> =
    req.body && req.body.length > 0
      ? [req.body]
      : unique([canonicalQuery(rawQuery), topLevelSortedQuery(rawQuery), ...(QUERY_SYNTAX.test(rawQuery) ? [rawQuery] : [])]);
  return hosts.flatMap((host) => rests.map((rest) => stringToSign({ method: req.method, host, path, rest })));
}

/**
 * Whether the signature matches any accepted form. Every candidate is computed and compared in
 * constant time, so timing tells neither how close a guess was nor which form matched.
 */
export function verifySignature(secret: string, req: IncomingRequest, signature: string): boolean {
  const given = Buffer.from(signature, 'utf8');
  let matched = false;
  for (const candidate of acceptedStringsToSign(req)) {
    const expected = Buffer.from(hmac(secret, candidate), 'utf8');
    if (expected.length === given.length && timingSafeEqual(expected, given)) matched = true;
  }
  return matched;
}

export interface SignRequestInput {
  secret: string;
  method: string;
  /** Host name the request goes to; a port, if given, is not signed. */
  host: string;
  path: string;
  query?: QueryInput | undefined;
  /** The exact bytes that will be sent (ignored for GET and HEAD, which carry no body). */
  body?: string | Uint8Array | undefined;
}

export interface SignedRequest {
  signature: string;
  /** The canonical query that was signed; send exactly this. */
  query: string;
  /** path, plus "?" + query when there is one: the request target to send. */
  target: string;
}

/** Signs a request the canonical way (for clients: the CLI, tests, integrators' examples). */
export function signRequest(input: SignRequestInput): SignedRequest {
  const method = input.method.toUpperCase();
  const query = input.query === undefined ? '' : canonicalQuery(input.query);
  const body = method === 'GET' || method === 'HEAD' ? undefined : input.body;
  const hasBody = body !== undefined && (typeof body === 'string' ? body.length > 0 : body.byteLength > 0);
  const signature = signatureFor(input.secret, {
    method,
    host: hostWithoutPort(input.host),
    path: input.path,
    rest: hasBody ? body : query,
  });
  return { signature, query, target: query === '' ? input.path : `${input.path}?${query}` };
}
