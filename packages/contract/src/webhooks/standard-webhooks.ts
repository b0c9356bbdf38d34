import { createHmac } from 'node:crypto';

/**
 * The Standard Webhooks headers (standardwebhooks.com) that every delivery carries beside
 * Fulfil-Signature, so that the specification's reference verifiers (npm `standardwebhooks`, and
 * its ports to other languages) check fulfil's deliveries unmodified:
 *
 *   webhook-id: <event id>   webhook-timestamp: <unix seconds>
 *   webhook-signature: v1,<base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`> [v1,<…> during a rotation]
 *
 * The HMAC key is the secret's bytes: what follows `whsec_`, base64-decoded. Secrets made since
 * 26 Nov 2026 are `whsec_` and standard base64 (the form the reference verifiers take as they are);
 * older ones are `whsec_` and base64url, the same bytes written with `-` and `_` and no padding:
 * toStandardWebhooksSecret rewrites one into the other. Fulfil-Signature keeps keying its HMAC
 * with the secret string as shown, so receivers already verifying it need change nothing.
 */
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

const PREFIX = 'whsec_';

/** The key bytes of a `whsec_` secret, in either base64 alphabet. */
export function standardWebhooksKey(secret: string): Buffer {
  if (typeof secret !== 'string' || !secret.startsWith(PREFIX)) throw new TypeError('a webhook secret starts with whsec_');
  const encoded = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded)) throw new TypeError('a webhook secret is whsec_ and base64');
  const key = Buffer.from(encoded.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length < 16) throw new TypeError('a webhook secret holds at least 16 bytes');
  return key;
}

/**
 * The secret in Standard Webhooks' own form (`whsec_` and padded standard base64), which its
 * reference verifiers accept as is; a secret already in that form comes back unchanged.
 */
export function toStandardWebhooksSecret(secret: string): string {
  return `${PREFIX}${standardWebhooksKey(secret).toString('base64')}`;
}

/** The `webhook-signature` value: one `v1,<base64>` per secret (the new one first), space-separated. */
export function signStandardWebhook(secrets: readonly string[], id: string, timestampSeconds: number, rawBody: string): string {
  if (!Array.isArray(secrets) || secrets.length === 0) throw new TypeError('signStandardWebhook needs at least one secret');
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0)
    throw new TypeError('timestampSeconds must be a whole number of seconds');
  // The id is part of what is signed, and a header: the specification keeps it to these characters.
  if (!/^[A-Za-z0-9_.-]{1,200}$/.test(id)) throw new TypeError('a webhook id is 1 to 200 of A-Z a-z 0-9 _ . -');
  return secrets
    .map((secret) => {
      const mac = createHmac('sha256', standardWebhooksKey(secret)).update(`${id}.${timestampSeconds}.${rawBody}`).digest('base64');
      return `v1,${mac}`;
    })
    .join(' ');
}

/** The three Standard Webhooks headers of one delivery. */
export function standardWebhookHeaders(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  rawBody: string,
): Record<string, string> {
  return {
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestampSeconds),
    [WEBHOOK_SIGNATURE_HEADER]: signStandardWebhook(secrets, id, timestampSeconds, rawBody),
  };
}
