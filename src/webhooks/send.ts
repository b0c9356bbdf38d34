import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { bareHost, isPublicAddress, type AddressPolicy } from './address-policy.ts';
import type { WebhookOutcome } from '../db/schema.ts';

export interface ResolvedAddress {
  address: string;
  family: number;
}
/** Host name → addresses. The system resolver in the service; tests may answer as a rebinding DNS would. */
export type Resolve = (host: string) => Promise<ResolvedAddress[]>;
export const systemResolve: Resolve = (host) => dnsLookup(host, { all: true, verbatim: true });

export interface SendOptions {
  policy: AddressPolicy;
  resolve: Resolve;
  connectTimeoutMs: number;
  responseTimeoutMs: number;
}

export interface SendResult {
  outcome: Exclude<WebhookOutcome, 'disabled'>;
  statusCode?: number;
  error?: string;
  latencyMs: number;
  /** A 429 or 503's Retry-After, in ms from the answer (not bounded here). */
  retryAfterMs?: number;
}

/**
 * A Retry-After value (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) as ms from `now`; a date
 * in the past is 0, anything unreadable undefined.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  // An HTTP-date names its month (and zone); Date.parse alone would also read "-1" or "1.5".
  if (Number.isNaN(at) || !/[A-Za-z]{3}/.test(v)) return undefined;
  return Math.max(0, at - now);
}

/** How much of an answer is read: the status says everything; the rest is only drained this far. */
const MAX_ANSWER_BYTES = 4096;

class RefusedAddress extends Error {}

// Kept-alive connections per process: a receiver taking many events costs one TLS handshake, not
// one per event. A connection is only ever opened to an address vetted when it was opened.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 32, maxFreeSockets: 8, timeout: 30_000 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 32, maxFreeSockets: 8, timeout: 30_000 }),
};

/**
 * Resolves the URL's host and checks every address it resolves to, since a name answering both a
 * public and a private address could hand either to the connection.
 */
export async function vetAddresses(url: URL, opts: Pick<SendOptions, 'policy' | 'resolve'>): Promise<ResolvedAddress[]> {
  const host = bareHost(url);
  const family = isIP(host);
  const addresses = family ? [{ address: host, family }] : await opts.resolve(host);
  if (addresses.length === 0) throw new RefusedAddress(`${host} resolves to no address`);
  if (!opts.policy.allowPrivate) {
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad) throw new RefusedAddress(`${host} resolves to ${bad.address}, a loopback, private, link-local or reserved address`);
  }
  return addresses;
}

/** Whether an address error is a refusal (as opposed to a DNS failure). */
export function isRefusedAddress(err: unknown): err is Error {
  return err instanceof RefusedAddress;
}

/**
 * One POST to a receiver. The connection goes to the address vetted here (a lookup that answers
 * only it), with the URL's own Host header and TLS server name; redirects are not followed (a 3xx
 * is an HTTP error); at most MAX_ANSWER_BYTES of the answer are read; the connect and the whole
 * call have deadlines. Never throws: every way a call can end is a SendResult.
 */
export async function sendWebhook(
  target: { url: string; body: string; headers: Record<string, string> },
  opts: SendOptions,
): Promise<SendResult> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const url = new URL(target.url);
  let chosen: ResolvedAddress;
  try {
    [chosen] = (await vetAddresses(url, opts)) as [ResolvedAddress];
  } catch (err) {
    if (isRefusedAddress(err)) return { outcome: 'refused_address', error: err.message, latencyMs: latency() };
    return { outcome: 'network', error: `cannot resolve ${url.hostname}: ${(err as Error).message}`, latencyMs: latency() };
  }
  const lookup: LookupFunction = (_host, options, cb) => {
    if (options.all) (cb as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [chosen]);
    else cb(null, chosen.address, chosen.family);
  };
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(callTimer);
      resolve({ ...result, latencyMs: latency() });
    };
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST',
      agent: agents[url.protocol as 'http:' | 'https:'],
      lookup,
      headers: { ...target.headers, 'content-length': Buffer.byteLength(target.body) },
    });
    const giveUp = (result: Omit<SendResult, 'latencyMs'>) => {
      finish(result);
      req.destroy();
    };
    const connectTimer = setTimeout(() => giveUp({ outcome: 'timeout', error: 'connect timed out' }), opts.connectTimeoutMs);
    const callTimer = setTimeout(() => giveUp({ outcome: 'timeout', error: 'no complete answer in time' }), opts.responseTimeoutMs);
    req.on('socket', (socket: Socket) => {
      const connected = () => {
        clearTimeout(connectTimer);
        // Belt and braces: the address actually connected to, whatever resolved it.
        const remote = socket.remoteAddress;
        if (!opts.policy.allowPrivate && (!remote || !isPublicAddress(remote))) {
          giveUp({ outcome: 'refused_address', error: `connected to ${remote ?? 'an unknown address'}, which is not public` });
        }
      };
      if (socket.connecting) socket.once('connect', connected);
      else connected();
    });
    req.on('error', (err) => {
      finish({ outcome: 'network', error: (err as Error & { code?: string }).code ?? err.message });
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const outcome: SendResult['outcome'] = status >= 200 && status < 300 ? 'success' : 'http_error';
      const header = res.headers['retry-after'];
      const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(Array.isArray(header) ? header[0] : header) : undefined;
      const answered: Omit<SendResult, 'latencyMs'> =
        retryAfterMs === undefined ? { outcome, statusCode: status } : { outcome, statusCode: status, retryAfterMs };
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) {
          // Enough: the status is known; the rest is not wanted and the connection is not reused.
          finish(answered);
          res.destroy();
        }
      });
      res.on('end', () => finish(answered));
      res.on('aborted', () => finish({ outcome: 'network', statusCode: status, error: 'the answer was cut off' }));
      res.on('error', () => finish({ outcome: 'network', statusCode: status, error: 'the answer was cut off' }));
      res.on('close', () => finish({ outcome: 'network', statusCode: status, error: 'the answer was cut off' }));
    });
    req.end(target.body);
  });
}
