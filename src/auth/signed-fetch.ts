import { signRequest } from './signer.ts';

export interface SigningCredential {
  token: string;
  secret: string;
}

/**
 * fetch with X-Token and X-Signature (docs/API.md §Signature). An object body is serialised once, and those very
 * bytes are both signed and sent. The query of pathAndQuery is sent in canonical form, which is
 * what was signed. extraHeaders come last, so a caller may override any header (tests do).
 */
export async function signedFetch(
  baseUrl: string,
  cred: SigningCredential,
  method: string,
  pathAndQuery: string,
  body?: string | object,
  extraHeaders: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  const base = new URL(baseUrl);
  const q = pathAndQuery.indexOf('?');
  const path = q === -1 ? pathAndQuery : pathAndQuery.slice(0, q);
  const query = q === -1 ? undefined : pathAndQuery.slice(q + 1);
  const bytes = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const upper = method.toUpperCase();
  const signed = signRequest({ secret: cred.secret, method: upper, host: base.hostname, path, query, body: bytes });
  const headers: Record<string, string> = {
    accept: 'application/json',
    'x-token': cred.token,
    'x-signature': signed.signature,
    ...(bytes !== undefined ? { 'content-type': 'application/json' } : {}),
    ...extraHeaders,
  };
  return fetch(new URL(signed.target, base.origin), { method: upper, headers, body: bytes, signal });
}
