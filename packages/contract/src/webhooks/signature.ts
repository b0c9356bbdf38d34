import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signing and verifying fulfil's webhook requests. Pure (node:crypto only): the service signs
 * with it, receivers verify with it, so both read the header the same way.
 *
 * The header is `Fulfil-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, each v1 the
 * HMAC-SHA256, under one of the endpoint's secrets, of `<t>.<raw body>`. While a secret is being
 * rotated the service signs with the new and the old one, so a receiver holding either verifies.
 * The timestamp is signed too: a receiver refuses requests older (or further in the future) than
 * its tolerance, so a captured request cannot be replayed later.
 */
export const SIGNATURE_HEADER = 'Fulfil-Signature';
export const EVENT_ID_HEADER = 'Fulfil-Event-Id';
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Secrets must be real keys: anyone can compute the HMAC under the empty key, so a receiver
 * configured with an empty secret (an unset variable) would accept forged deliveries.
 */
function assertSecrets(secrets: readonly string[], fn: string): void {
  if (!Array.isArray(secrets) || secrets.length === 0) throw new TypeError(`${fn} needs at least one secret`);
  secrets.forEach((secret, i) => {
    if (typeof secret !== 'string' || secret === '') throw new TypeError(`${fn}: secret ${i} is empty (or not a string)`);
  });
}

export function signPayload(secrets: readonly string[], timestampSeconds: number, rawBody: string): string {
  assertSecrets(secrets, 'signPayload');
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0)
    throw new TypeError('timestampSeconds must be a whole number of seconds');
  const signatures = secrets.map((secret) => `v1=${hmacHex(secret, timestampSeconds, rawBody)}`);
  return [`t=${timestampSeconds}`, ...signatures].join(',');
}

export type WebhookVerificationCode =
  'missing_signature' | 'malformed_signature' | 'stale_timestamp' | 'future_timestamp' | 'no_matching_signature' | 'malformed_body';

/** Why a request was refused; `code` is stable, the message is for people. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly code: WebhookVerificationCode,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifyOptions {
  /** How far the signed timestamp may be from now, either way, in seconds: finite, 0 or more (default DEFAULT_TOLERANCE_SECONDS). */
  toleranceSeconds?: number;
  /** The current time in seconds since the epoch (for tests); default the clock. */
  now?: number;
}

/** Headers as node:http gives them (lower-case keys), a fetch Headers object, or a plain record. */
export type WebhookHeaders = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

/**
 * Checks a delivery and returns its parsed body (the event). Throws WebhookVerificationError when
 * the signature header is missing or malformed, the timestamp is outside the tolerance, or no v1
 * signature matches any of `secrets` (pass the old and the new one while rotating). Pass the body
 * exactly as received, before any JSON parsing: a re-serialised body does not verify. Throws
 * TypeError, whatever the request, when `secrets` is empty or holds an empty string, or when
 * `toleranceSeconds` (or `now`) is not a finite number (negative tolerances too).
 */
export function verifyWebhook<T = unknown>(
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  secrets: readonly string[],
  options: VerifyOptions = {},
): T {
  // The caller's mistakes throw TypeError, before the request is looked at: answering them as a
  // refused request (400) would hide them, and NaN would turn the timestamp check off.
  assertSecrets(secrets, 'verifyWebhook');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0)
    throw new TypeError(`verifyWebhook: toleranceSeconds must be a finite number of seconds, 0 or more (got ${String(tolerance)})`);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (typeof now !== 'number' || !Number.isFinite(now))
    throw new TypeError(`verifyWebhook: now must be a finite number of seconds since the epoch (got ${String(now)})`);
  const header = headerValue(headers, SIGNATURE_HEADER);
  if (header === undefined || header === '') throw new WebhookVerificationError('missing_signature', `no ${SIGNATURE_HEADER} header`);
  const { timestamp, signatures } = parseHeader(header);
  if (timestamp < now - tolerance)
    throw new WebhookVerificationError('stale_timestamp', `signed ${now - timestamp} s ago, more than the ${tolerance} s tolerated`);
  if (timestamp > now + tolerance)
    throw new WebhookVerificationError(
      'future_timestamp',
      `signed ${timestamp - now} s in the future, more than the ${tolerance} s tolerated`,
    );
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  const expected = secrets.map((secret) => Buffer.from(hmacHex(secret, timestamp, body), 'hex'));
  // Every pair is compared, matched or not, so the time taken says nothing about which matched.
  let matched = false;
  for (const signature of signatures) {
    for (const candidate of expected) {
      if (signature.length === candidate.length && timingSafeEqual(signature, candidate)) matched = true;
    }
  }
  if (!matched) throw new WebhookVerificationError('no_matching_signature', 'no signature matches the given secrets');
  try {
    return JSON.parse(body) as T;
  } catch {
    throw new WebhookVerificationError('malformed_body', 'the signed body is not JSON');
  }
}

function hmacHex(secret: string, timestampSeconds: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`).digest('hex');
}

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(',') : value;
}

function parseHeader(header: string): { timestamp: number; signatures: Buffer[] } {
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (eq <= 0) throw new WebhookVerificationError('malformed_signature', `${SIGNATURE_HEADER} part "${part}" is not key=value`);
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined)
        throw new WebhookVerificationError('malformed_signature', `${SIGNATURE_HEADER} needs one t=<unix seconds>`);
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/.test(value))
        throw new WebhookVerificationError('malformed_signature', `${SIGNATURE_HEADER} v1 must be 64 hex digits`);
      signatures.push(Buffer.from(value, 'hex'));
    }
    // Other schemes (a future v2) are skipped, so receivers keep working while one is added.
  }
  if (timestamp === undefined) throw new WebhookVerificationError('malformed_signature', `${SIGNATURE_HEADER} has no t=`);
  if (signatures.length === 0) throw new WebhookVerificationError('malformed_signature', `${SIGNATURE_HEADER} has no v1=`);
  return { timestamp, signatures };
}
